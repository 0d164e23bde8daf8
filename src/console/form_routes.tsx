/**
 * Forms in the console: a form's overview, a new form, the builder (publishes a new schema
 * version), the version history with what changed, and sharing (link with the pin, embed
 * snippet, QR code).
 *
 * @module
 */
import { NEED, type Need } from "../people/access.ts";
import { type Context, Hono } from "hono";
import encodeQR from "qr";
import { shortFingerprint } from "../crypto/keys.ts";
import { httpError } from "../http/errors.ts";
import type { VaultForm } from "../vault/index.ts";
import { Builder, PREVIEW_URL, previewDocument } from "./builder.tsx";
import {
  applyAction,
  type BuilderSettings,
  type DraftField,
  NEW_FORM_SETTINGS,
  readAction,
  readDraft,
  readSettings,
} from "./builder_form.ts";
import { type ConsoleDeps, type ConsoleEnv, field, formBody } from "./context.ts";
import { flaggedWebhooks } from "./flags.ts";
import { diffVersions } from "./form_diff.ts";
import { FormTabs, html, Notice, Page } from "./layout.tsx";
import { FlagBox } from "./webhook_pages.tsx";
import { FormStatus, statusText } from "./lifecycle_routes.tsx";
import { iframeSnippet, scriptSnippet, shareLink } from "../web/links.ts";

type C = Context<ConsoleEnv>;

/** Mounts the form pages. */
export function formRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault } = deps;
  const ownForm = (c: C, need: Need = NEED.read) =>
    vault.forms.get(vault.access.gate(c.var.session, need), c.req.param("formId") ?? "");
  const link = async (form: VaultForm) =>
    shareLink(vault.link.relayUrl, form.formId, await vault.keys.manifestFingerprint());

  const newPage = async (
    c: C,
    title: string,
    fields: DraftField[],
    settings: BuilderSettings,
    error?: string,
  ) => {
    const databases = await vault.listDatabases(vault.access.gate(c.var.session, NEED.forms));
    return c.html(
      html(
        <Page title="New form" session={c.var.session}>
          <Builder
            session={c.var.session}
            action="/console/forms/new"
            title={title}
            fields={fields}
            settings={settings}
            error={error}
            databases={databases}
          />
        </Page>,
      ),
      error ? 400 : 200,
    );
  };

  const builderPage = (
    c: C,
    form: VaultForm,
    draft: { title: string; fields: DraftField[]; settings: BuilderSettings },
    e?: string,
  ) =>
    c.html(
      html(
        <Page title={`Builder: ${form.title}`} session={c.var.session}>
          <FormTabs formId={form.formId} current="Builder" />
          <p class="muted">
            {`Current schema version ${form.schemaVersion}; published ${
              form.publishedVersion ? `v${form.publishedVersion}` : "never"
            }. Publishing saves a new version and signs and publishes its manifest.`}
          </p>
          <Builder
            session={c.var.session}
            action={`/console/forms/${encodeURIComponent(form.formId)}/builder`}
            title={draft.title}
            fields={draft.fields}
            settings={draft.settings}
            error={e}
          />
        </Page>,
      ),
      e ? 400 : 200,
    );

  app.get(
    "/console/forms/new",
    (c) =>
      newPage(
        c,
        "Untitled form",
        [{ id: "name", kind: "text", label: "Your name" }],
        NEW_FORM_SETTINGS,
      ),
  );

  app.post(PREVIEW_URL, async (c) => {
    const body = await formBody(c);
    return c.json(previewDocument(field(body, "title"), readDraft(body)));
  });

  app.post("/console/forms/new", async (c) => {
    const body = await formBody(c);
    const action = readAction(body);
    const fields = applyAction(readDraft(body), action);
    const title = field(body, "title");
    const settings = readSettings(body);
    if (action.kind !== "publish") return newPage(c, title, fields, settings);
    try {
      const form = await vault.createForm(vault.access.gate(c.var.session, NEED.forms), {
        databaseId: field(body, "databaseId"),
        ...(field(body, "formId") ? { formId: field(body, "formId") } : {}),
        title,
        fields,
        ...settings,
      });
      await vault.publish(vault.access.gate(c.var.session, NEED.forms), form.formId);
      const done = encodeURIComponent(`Form created and version 1 published.`);
      return c.redirect(`/console/forms/${encodeURIComponent(form.formId)}?done=${done}`, 303);
    } catch (err) {
      const known = httpError(err);
      if (known && known.status < 500) {
        return newPage(c, title, fields, settings, known.body.error.message);
      }
      throw err;
    }
  });

  app.get("/console/forms/:formId", async (c) => {
    const session = c.var.session;
    const form = await ownForm(c);
    const flagged = await flaggedWebhooks(deps.webhooks, [form.formId]);
    const db = await vault.database(vault.access.gate(session, NEED.read), form.databaseId);
    const base = `/console/forms/${encodeURIComponent(form.formId)}`;
    return c.html(html(
      <Page title={form.title} session={session}>
        <FormTabs formId={form.formId} current="Overview" />
        <Notice text={c.req.query("done")} />
        {flagged.map(({ config, flag }) => (
          <FlagBox session={session} config={config} flag={flag} />
        ))}
        <table>
          <tbody>
            <tr>
              <th scope="row">Form id</th>
              <td>
                <code>{form.formId}</code>
              </td>
            </tr>
            <tr>
              <th scope="row">Status</th>
              <td>{statusText(form)}</td>
            </tr>
            <tr>
              <th scope="row">Schema version</th>
              <td>{form.schemaVersion}</td>
            </tr>
            <tr>
              <th scope="row">Published</th>
              <td>
                {form.publishedVersion
                  ? `v${form.publishedVersion} at ${form.publishedAt}`
                  : "not published"}
              </td>
            </tr>
            <tr>
              <th scope="row">Form key</th>
              <td>
                <code>{shortFingerprint(db.fingerprint)}</code>{" "}
                <span class="muted">(senders see it on the form page)</span>
              </td>
            </tr>
            <tr>
              <th scope="row">Uploaded files</th>
              <td>
                {form.files === "encrypted"
                  ? "encrypted in the sender's browser"
                  : "stored as sent (not encrypted)"}
              </td>
            </tr>
            <tr>
              <th scope="row">Drafts</th>
              <td>
                {form.drafts
                  ? "senders may keep an encrypted draft on their device"
                  : "the form page keeps nothing in the sender's browser"}
              </td>
            </tr>
            <tr>
              <th scope="row">Fields</th>
              <td>
                {form.fields.map((f) =>
                  `${f.label || f.id} (${f.kind})`
                ).join(", ")}
              </td>
            </tr>
          </tbody>
        </table>
        <p>
          <a href={`${base}/records`}>Records</a> · <a href={`${base}/share`}>Share link</a>
        </p>
        <FormStatus session={session} form={form} />
      </Page>,
    ));
  });

  app.get("/console/forms/:formId/builder", async (c) => {
    const form = await ownForm(c, NEED.forms);
    const fields = form.fields as unknown as DraftField[];
    const settings = { files: form.files, drafts: form.drafts };
    return builderPage(c, form, { title: form.title, fields, settings });
  });

  app.post("/console/forms/:formId/builder", async (c) => {
    const form = await ownForm(c, NEED.forms);
    const body = await formBody(c);
    const action = readAction(body);
    const fields = applyAction(readDraft(body), action);
    const title = field(body, "title") || form.title;
    const draft = { title, fields, settings: readSettings(body) };
    if (action.kind !== "publish") return builderPage(c, form, draft);
    try {
      const next = await vault.forms.update(
        vault.access.gate(c.var.session, NEED.forms),
        form.formId,
        {
          title,
          fields,
          ...draft.settings,
        },
      );
      await vault.publish(vault.access.gate(c.var.session, NEED.forms), form.formId);
      const done = encodeURIComponent(`Version ${next.schemaVersion} published.`);
      return c.redirect(
        `/console/forms/${encodeURIComponent(form.formId)}/versions?done=${done}`,
        303,
      );
    } catch (err) {
      const known = httpError(err);
      if (known && known.status < 500) {
        return builderPage(c, form, draft, known.body.error.message);
      }
      throw err;
    }
  });

  app.get("/console/forms/:formId/versions", async (c) => {
    const form = await ownForm(c);
    const versions = await vault.forms.versions(
      vault.access.gate(c.var.session, NEED.read),
      form.formId,
    );
    return c.html(html(
      <Page title={`Versions of ${form.title}`} session={c.var.session}>
        <FormTabs formId={form.formId} current="Versions" />
        <Notice text={c.req.query("done")} />
        <ol reversed>
          {versions.toReversed().map((v) => {
            const i = versions.indexOf(v);
            const changes = diffVersions(i > 0 ? versions[i - 1] : null, v);
            return (
              <li>
                <h2>
                  {`Version ${v.schemaVersion}`}
                  {v.schemaVersion === form.publishedVersion ? " (published)" : ""}
                </h2>
                <p class="muted">{`Saved ${v.createdAt}`}</p>
                <ul>
                  {changes.length === 0
                    ? <li>No changes</li>
                    : changes.map((ch) => <li>{ch.text}</li>)}
                </ul>
              </li>
            );
          })}
        </ol>
      </Page>,
    ));
  });

  app.get("/console/forms/:formId/share", async (c) => {
    const form = await ownForm(c);
    const url = await link(form);
    const pin = await vault.keys.manifestFingerprint();
    return c.html(html(
      <Page title={`Share ${form.title}`} session={c.var.session}>
        <FormTabs formId={form.formId} current="Share" />
        {!form.publishedVersion && !form.deletedAt && (
          <p class="error">This form is not published yet: publish it from the builder.</p>
        )}
        {form.closed && (
          <p class="error">
            This form is closed: its link shows your message instead of the form. Reopen it from the
            Overview.
          </p>
        )}
        {form.deletedAt && (
          <p class="error">This form was deleted: its link and embeds no longer work.</p>
        )}
        <h2>Link</h2>
        <p>
          <a href={url}>{url}</a>
        </p>
        <p>
          {"Pin (the manifest key's fingerprint, after #pin=): "}
          <code>{pin}</code>
        </p>
        <h2>Embed</h2>
        <label for="embed">Embed snippet (iframe)</label>
        <textarea id="embed" readonly>
          {iframeSnippet(vault.link.relayUrl, form.formId, pin, form.title)}
        </textarea>
        <label for="embed-script">Embed snippet (script; the frame grows with the form)</label>
        <textarea id="embed-script" readonly>
          {scriptSnippet(vault.link.relayUrl, form.formId, pin, form.title)}
        </textarea>
        <h2>QR code</h2>
        <img
          class="qr"
          src={`/console/forms/${encodeURIComponent(form.formId)}/qr.svg`}
          alt={`QR code of ${url}`}
          width="220"
          height="220"
        />
      </Page>,
    ));
  });

  app.get("/console/forms/:formId/qr.svg", async (c) => {
    const svg = encodeQR(await link(await ownForm(c)), "svg");
    c.header("content-type", "image/svg+xml");
    return c.body(svg);
  });

  return app;
}
