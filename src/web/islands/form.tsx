/// <reference lib="dom" />
/**
 * The form page's island (bundled to `/assets/form.{hash}.js`). It fetches the manifest and
 * verifies its Ed25519 signature against the pin (baked into a static export, else the
 * `#pin=` of the share link), renders the verified fields (the same `FormFields` the server
 * rendered), validates with the SDK's zod schemas, uploads files, seals in the browser and
 * submits, then shows the receipt and an edit link. Opened through an edit link, it amends
 * the submission (payload mode `Update`) from an empty form: the page keeps nothing in the
 * browser's storage, except an encrypted draft on forms whose owner allows drafts
 * (`drafts: true`, client/draft_panel.ts). Once verified, the trust line names who can read
 * the answers (form/trust_line.tsx).
 *
 * User Timing marks `sealpost:interactive` (ready to submit), `sealpost:submit` (Submit
 * pressed) and `sealpost:sent` (the relay's receipt in hand) let a benchmark time the page.
 *
 * @module
 */
import { RelayError, ValidationError } from "../../sdk/errors.ts";
import { fetchManifest } from "../../sdk/manifest.ts";
import { buildEnvelope, buildPayload, newSubmissionId, seal } from "../../sdk/payload.ts";
import { submit } from "../../sdk/submit.ts";
import { x25519Impl } from "../../crypto/sealed_box.ts";
import type { Manifest } from "../../forms/manifest.ts";
import type { SubmissionEnvelope, SubmissionPayload } from "../../forms/payload.ts";
import { amend } from "../client/amend.ts";
import { FilePicker } from "../client/file_picker.ts";
import { setFieldError, showFieldErrors } from "../client/field_errors.ts";
import { readValues } from "../client/read_values.ts";
import { DraftPanel } from "../client/draft_panel.ts";
import { FormFields, offsetText, UTC_OFFSETS } from "../form/fields.tsx";
import { ClosedNotice } from "../form/closed.tsx";
import { trustFacts, TrustLine } from "../form/trust_line.tsx";
import { editLink, EMBED_HEIGHT_MESSAGE, parseFragment } from "../links.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>("sp-form");
const notice = $("sp-notice");
const button = $<HTMLButtonElement>("sp-submit");
const progress = $("sp-progress");

function say(text: string, tone: "" | "good" | "bad" = "") {
  notice.textContent = text;
  notice.className = `notice ${tone}`.trim();
  notice.hidden = false;
}

/** Refuses to go on: the form is hidden and the notice says why. */
function refuse(text: string) {
  say(text, "bad");
  notice.setAttribute("role", "alert");
  form.hidden = true;
}

/** The owner closed the form (the relay's 410 `form_closed`): its message, and no form. */
function closed(err: unknown): boolean {
  if (!(err instanceof RelayError) || err.code !== "form_closed") return false;
  notice.innerHTML = String(<ClosedNotice message={err.serverMessage ?? ""} />);
  notice.className = "notice closed";
  notice.hidden = false;
  form.hidden = true;
  return true;
}

function embedded() {
  if (self.parent === self) return;
  const post = () =>
    self.parent.postMessage(
      { type: EMBED_HEIGHT_MESSAGE, height: document.body.getBoundingClientRect().height },
      "*",
    );
  new ResizeObserver(post).observe(document.body);
}

function locate(fieldId: string) {
  const lat = $<HTMLInputElement>(`sp-${fieldId}-lat`);
  const lng = $<HTMLInputElement>(`sp-${fieldId}-lng`);
  if (!navigator.geolocation) {
    setFieldError(form, fieldId, "This browser cannot tell your location; type it in");
    return;
  }
  navigator.geolocation.getCurrentPosition(
    (pos) => {
      lat.value = pos.coords.latitude.toFixed(6);
      lng.value = pos.coords.longitude.toFixed(6);
      setFieldError(form, fieldId, null);
    },
    (err) => setFieldError(form, fieldId, `Your location is unavailable: ${err.message}`),
    { timeout: 15_000 },
  );
}

function showReceipt(submissionId: string, editToken: string, pin: string) {
  const link = editLink(location.href, pin, submissionId, editToken);
  $("sp-receipt-id").textContent = submissionId;
  $<HTMLAnchorElement>("sp-edit-link").href = link;
  $("sp-edit-url").textContent = link;
  form.hidden = true;
  notice.hidden = true;
  $("sp-receipt").hidden = false;
  $("sp-receipt-title").focus();
}

async function main() {
  embedded();
  const fragment = parseFragment(location.hash);
  const pin = form.dataset.pin || fragment.pin;
  if (!pin) {
    refuse(
      "This page cannot verify this form: its link lacks the #pin=… part that proves the form " +
        "comes from its owner. Nothing can be sent. Ask the owner for the full link.",
    );
    return;
  }
  let manifest: Manifest;
  try {
    const url = new URL(form.dataset.manifestUrl!, location.href).href;
    manifest = await fetchManifest(url, { pin, retries: 1 });
  } catch (e) {
    if (closed(e)) return;
    if (e instanceof RelayError && e.code === "form_not_found") {
      refuse(
        "This form is not published here (any more), so nothing can be sent. Check the link " +
          "you were given.",
      );
      return;
    }
    refuse(
      `This form could not be verified, so nothing can be sent: ${(e as Error).message}. ` +
        "Someone may have altered it; tell the form's owner.",
    );
    return;
  }
  if (manifest.formId !== form.dataset.formId) {
    refuse(
      `This page is for form "${form.dataset.formId}" but the signed manifest is for ` +
        `"${manifest.formId}"; nothing can be sent.`,
    );
    return;
  }
  const edit = fragment.edit;
  const trust = $("sp-trust");
  trust.innerHTML = String(<TrustLine facts={trustFacts(manifest)} />);
  trust.hidden = false;
  const title = manifest.title || manifest.formId;
  $("sp-title").textContent = title;
  document.title = edit ? `Edit: ${title}` : title;
  $("sp-fields").innerHTML = String(<FormFields fields={manifest.fields} />);
  // A date-time without a value starts at this browser's UTC offset.
  const here = offsetText(-new Date().getTimezoneOffset());
  for (const f of manifest.fields) {
    const select = document.getElementById(`sp-${f.id}-offset`) as HTMLSelectElement | null;
    if (f.kind === "dateTime" && select && UTC_OFFSETS.includes(here)) {
      select.value = here;
    }
  }
  const label = typeof manifest.submitLabel === "string" && manifest.submitLabel.trim();
  button.textContent = label || "Submit";
  const relayUrl = manifest.relayUrl;
  const pickers = manifest.fields
    .filter((f) => f.kind === "image" || f.kind === "attachment")
    .map((f) =>
      new FilePicker(f, form, { recipient: manifest.recipient, files: manifest.files, relayUrl })
    );
  // Drafts only where the owner allows them, and never of an amendment.
  const drafts = manifest.drafts === true && !edit
    ? new DraftPanel(form, manifest.formId, manifest.fields)
    : null;
  await drafts?.start();
  form.addEventListener("click", (e) => {
    const target = (e.target as HTMLElement).closest<HTMLButtonElement>("[data-action=locate]");
    if (target?.dataset.for) locate(target.dataset.for);
  });
  const ids = manifest.fields.map((f) => f.id);
  let last: { key: string; envelope: SubmissionEnvelope } | null = null;
  // The progress line appears only when a step takes a moment: a fast submission does not
  // redraw the page before its POST.
  let statusTimer: ReturnType<typeof setTimeout> | undefined;
  let busy = false;
  const status = (text: string) => {
    clearTimeout(statusTimer);
    if (!text) progress.textContent = "";
    else statusTimer = setTimeout(() => progress.textContent = text, 200);
  };

  async function send() {
    const raw = readValues(form, manifest.fields);
    for (const p of pickers) raw[p.field.id] = await p.value();
    let payload;
    try {
      payload = buildPayload(manifest, raw, { mode: edit ? "Update" : "Create" });
    } catch (e) {
      if (!(e instanceof ValidationError)) throw e;
      const errors = Object.fromEntries(e.issues.map((i) => [i.field, i.message]));
      const n = showFieldErrors(form, ids, errors);
      say(`${n === 1 ? "One field needs" : `${n} fields need`} your attention.`, "bad");
      return;
    }
    showFieldErrors(form, ids, {});
    if (pickers.length) status("Uploading files…");
    for (const p of pickers) await p.upload();
    status("Sealing and sending…");
    // A retry of the same answers resends the same envelope, which the relay de-duplicates.
    const key = JSON.stringify(payload.values);
    if (last?.key !== key) {
      const ciphertext = await seal(payload, manifest.recipient.publicKey);
      const submissionId = edit?.submissionId ?? newSubmissionId();
      last = { key, envelope: buildEnvelope(manifest, ciphertext, { submissionId }) };
    }
    const receipt = edit
      ? await amend(relayUrl, last.envelope, edit.editToken)
      : await submit(last.envelope, { relayUrl });
    performance.mark("sealpost:sent");
    drafts?.wipe();
    drafts?.close();
    showReceipt(receipt.submissionId, receipt.editToken, pin);
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    // One submission at a time. A flag, not `disabled`: restyling the button would make the
    // page redraw before the POST; the progress line says when it takes a moment.
    if (busy) return;
    busy = true;
    performance.mark("sealpost:submit");
    try {
      await send();
    } catch (err) {
      if (closed(err)) return;
      const field = (err as { field?: string }).field;
      if (field && ids.includes(field)) setFieldError(form, field, (err as Error).message);
      say(`Nothing was sent: ${(err as Error).message}. Try again.`, "bad");
    } finally {
      busy = false;
      status("");
    }
  });
  if (edit) {
    say(
      `You are changing submission ${edit.submissionId}. This browser does not keep your ` +
        "answers, so the form starts empty: fill it in again (files included); what you submit " +
        "replaces your earlier answers.",
    );
  } else {
    say("Verified: this form comes from its owner.", "good");
  }
  button.disabled = false;
  performance.mark("sealpost:interactive");
  // While the sender fills the form: pick the X25519 implementation (a trial key agreement)
  // and warm the sealing code, so pressing Submit does not pay for it.
  const warmUp = { values: {}, submittedAt: "", formVersion: 1, formSchema: "", mode: "Create" };
  x25519Impl().then(() => seal(warmUp as SubmissionPayload, manifest.recipient.publicKey))
    .catch(() => {/* a failure shows at Submit */});
}

main().catch((e) => refuse(`The form could not start: ${(e as Error).message}`));
