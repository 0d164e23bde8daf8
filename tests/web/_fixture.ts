/**
 * Browser test fixture: a real instance with a published form of every field kind, and
 * Debian's Chromium driven by playwright-core.
 */
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../_support/chromium.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { namedOwner, vaultForm } from "../_support/vault.ts";

/** One field of every kind (two choice fields: single and multi). */
export const ALL_FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true, maxLength: 200 },
  { id: "email", label: "Email", kind: "email", required: true },
  { id: "site", label: "Website", kind: "url" },
  { id: "phone", label: "Phone", kind: "phone" },
  { id: "bio", label: "About you", kind: "richText", description: "A few lines." },
  { id: "age", label: "Age", kind: "number", integer: true, min: 0, max: 150 },
  { id: "agree", label: "I agree to be contacted", kind: "boolean" },
  { id: "day", label: "Preferred day", kind: "date" },
  { id: "when", label: "Meeting time", kind: "dateTime" },
  { id: "size", label: "Size", kind: "choice", options: ["S", "M", "L"] },
  { id: "colors", label: "Colors", kind: "choice", multiple: true, options: ["red", "green"] },
  { id: "tags", label: "Tags", kind: "list" },
  { id: "place", label: "Where", kind: "geo" },
  { id: "photo", label: "Photo", kind: "image", accept: ["image/*"] },
  { id: "cv", label: "CV", kind: "attachment", accept: ["application/pdf"] },
];

/** A running instance with the every-kind form published, and a browser. */
export interface WebFixture {
  inst: TestInstance;
  formId: string;
  pin: string;
  token: string;
  browser: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts an instance (with `start`), publishes a form of `fields` titled `title` (with the
 * form `settings` given, e.g. `{ files: "plain" }`; else the defaults), and launches Chromium.
 * With `ownerName`, the form belongs to a new user of that name (else to the first user).
 */
export async function webFixture(
  fields: unknown[] = ALL_FIELDS,
  title = "Every kind",
  start: () => Promise<TestInstance> = () => startInstance(),
  settings: Record<string, unknown> = {},
  ownerName?: string,
): Promise<WebFixture> {
  const inst = await start();
  const dir = await Deno.makeTempDir({ prefix: "sealpost-web-" });
  try {
    const owner = ownerName ? await namedOwner(inst, ownerName) : undefined;
    const { form, pin, token } = await vaultForm(inst, title, fields, settings, owner);
    const browser = await launchChromium(`${dir}/profile`);
    return {
      inst,
      formId: form.formId,
      pin,
      token,
      browser,
      close: async () => {
        await browser.close();
        await inst.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (e) {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
}

/** Waits until `probe` gives a value other than null (at most 15 s). */
export async function waitFor<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const end = Date.now() + 15_000;
  while (Date.now() < end) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** The vault's record of a submission once `ready` holds for it (default: once it exists). */
export function recordOf(
  fx: WebFixture,
  submissionId: string,
  // deno-lint-ignore no-explicit-any
  ready: (record: any) => boolean = () => true,
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const url = `${fx.inst.url}/vault/forms/${fx.formId}/records/${submissionId}`;
  return waitFor(async () => {
    const res = await call(url, { token: fx.token });
    return res.status === 200 && ready(res.body) ? res.body : null;
  }, `record ${submissionId}`);
}

/** The stored bytes of an owned file reference, read back through the owner API. */
export async function blobBytes(fx: WebFixture, ref: { hash: string }): Promise<Uint8Array> {
  const userId = fx.inst.credentials.userId;
  const read = await call(`${fx.inst.url}/submissions/blob/${userId}/${ref.hash}`, {
    token: fx.token,
  });
  if (read.status !== 200) throw new Error(`Blob read: ${read.status}`);
  return new Uint8Array(await (await fetch(read.body.url)).arrayBuffer());
}

/** A record's file as the owner reads it (decrypted by the vault when it was encrypted). */
export async function recordFileBytes(
  fx: WebFixture,
  recordId: string,
  fieldId: string,
): Promise<Uint8Array> {
  const url = `${fx.inst.url}/vault/forms/${fx.formId}/records/${recordId}/files/${fieldId}`;
  const link = await call(url, { token: fx.token });
  if (link.status !== 200) throw new Error(`Record file link: ${link.status}`);
  return new Uint8Array(await (await fetch(link.body.url)).arrayBuffer());
}

/** A page or a frame of one. */
type Target = Pick<Page, "locator" | "getByRole">;

/** Waits until the form page verified its manifest and can submit. */
export async function whenReady(target: Target): Promise<void> {
  await target.locator("#sp-submit:not([disabled])").waitFor({ timeout: 15_000 });
}

/** Clicks Submit, waits for the receipt; the submission id and the edit link. */
export async function submitForReceipt(target: Target): Promise<{ id: string; link: string }> {
  await target.getByRole("button", { name: "Submit" }).click();
  await target.locator("#sp-receipt").waitFor({ state: "visible", timeout: 30_000 });
  const id = await target.locator("#sp-receipt-id").textContent();
  const link = await target.locator("#sp-edit-link").getAttribute("href");
  return { id: id!, link: link! };
}
