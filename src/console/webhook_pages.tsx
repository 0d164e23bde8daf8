/**
 * Webhook pages: a form's configurations, the editor (every setting of the specification,
 * secrets masked), the template preview, a test send's result, deliveries and attempts.
 *
 * @module
 */
import type {
  WebhookAttempt,
  WebhookConfig,
  WebhookDelivery,
  WebhookFlag,
} from "../store/ports/webhooks.ts";
import { maskSecret, type TestSendResult } from "../webhooks/index.ts";
import { flagReason } from "./flags.ts";
import { ActionButton, ColumnHeads, Csrf, ErrorBox } from "./layout.tsx";
import type { Session } from "./sessions.ts";
import { mappingLines } from "./webhook_form.ts";

/** A flag shown prominently, with retry all failed. */
export function FlagBox(
  { session, config, flag }: { session: Session; config: WebhookConfig; flag: WebhookFlag },
) {
  return (
    <div class="flag" role="alert">
      <strong>{`Webhook “${config.name || config.url}” needs your attention.`}</strong>{" "}
      {flagReason(flag)}. <a href={`/console/webhooks/${config.id}`}>See its deliveries</a>{" "}
      <ActionButton
        session={session}
        action={`/console/webhooks/${config.id}/retry-failed`}
        label="Retry all failed"
      />
    </div>
  );
}

/** What the editor shows: a stored configuration, or the settings just sent back. */
export interface EditorProps {
  session: Session;
  action: string;
  row: WebhookConfig | null;
  /** The posted form (after an error or a preview), shown instead of `row`. */
  posted?: Record<string, string | string[]>;
  error?: string | null;
  preview?: { body: string; contentType: string } | null;
  /** Where the console island posts the editor for a live body preview. */
  previewUrl: string;
}

function val(props: EditorProps, name: string, stored: string): string {
  const v = props.posted?.[name];
  return props.posted ? (Array.isArray(v) ? v[0] ?? "" : v ?? "") : stored;
}

function isOn(props: EditorProps, name: string, stored: boolean): boolean {
  return props.posted ? props.posted[name] === "on" : stored;
}

/** The add/edit form of a webhook configuration. */
export function WebhookEditor(props: EditorProps) {
  const { row, session } = props;
  const postedEvents = props.posted ? [props.posted.events ?? []].flat() : null;
  const events = postedEvents ?? row?.events ?? ["create", "update"];
  const mode = val(props, "mode", row?.mode ?? "default");
  const method = val(props, "method", row?.method ?? "POST");
  return (
    <form method="post" action={props.action} data-live-preview={props.previewUrl}>
      <Csrf session={session} />
      <ErrorBox text={props.error} />
      <label for="wh-name">Name</label>
      <input id="wh-name" name="name" type="text" value={val(props, "name", row?.name ?? "")} />
      <label for="wh-url">URL</label>
      <input id="wh-url" name="url" type="url" required value={val(props, "url", row?.url ?? "")} />
      <label for="wh-method">Method</label>
      <select id="wh-method" name="method">
        {["POST", "PUT", "PATCH"].map((m) => <option selected={m === method}>{m}</option>)}
      </select>
      <label for="wh-mode">Payload mode</label>
      <select id="wh-mode" name="mode">
        {[
          ["default", "Service default (JSON)"],
          ["json_template", "JSON template"],
          ["xml_template", "XML template"],
          ["form", "Form-encoded"],
        ].map(([v, l]) => <option value={v} selected={v === mode}>{l}</option>)}
      </select>
      <label for="wh-template">Template (template modes)</label>
      <textarea id="wh-template" name="template">
        {val(props, "template", row?.template ?? "")}
      </textarea>
      <label for="wh-mappings">Mappings (one `field = target` a line; empty: every field)</label>
      <textarea id="wh-mappings" name="mappings">
        {val(props, "mappings", mappingLines(row?.mappings ?? {}))}
      </textarea>
      <fieldset>
        <legend>Live events</legend>
        {["create", "update", "delete"].map((e) => (
          <label class="check">
            <input type="checkbox" name="events" value={e} checked={events.includes(e)} /> {e}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Authentication and headers</legend>
        <label for="wh-bearer">
          Bearer token{row?.bearer ? ` (set: ${maskSecret(row.bearer)}; blank keeps it)` : ""}
        </label>
        <input id="wh-bearer" name="bearer" type="password" autocomplete="off" />
        {row?.bearer && (
          <label class="check">
            <input type="checkbox" name="removeBearer" /> Remove the bearer token
          </label>
        )}
        <label for="wh-headers">Custom headers (one `Key: Value` a line)</label>
        {row && row.headers.length > 0 && (
          <p class="muted">
            {`Current: ${
              row.headers.map(([n, v]) => `${n}: ${maskSecret(v)}`).join("; ")
            }. Blank keeps them; new lines replace them.`}
          </p>
        )}
        <textarea id="wh-headers" name="headers"></textarea>
        {row && row.headers.length > 0 && (
          <label class="check">
            <input type="checkbox" name="removeHeaders" /> Remove the custom headers
          </label>
        )}
      </fieldset>
      <fieldset>
        <legend>Signature</legend>
        <label for="wh-secret">
          Signing secret
          {row?.signingSecret ? ` (set: ${maskSecret(row.signingSecret)}; blank keeps it)` : ""}
        </label>
        <input id="wh-secret" name="signingSecret" type="password" autocomplete="off" />
        <label class="check">
          <input type="checkbox" name="generateSigningSecret" />{" "}
          Generate a new signing secret (shown once)
        </label>
        {row?.signingSecret && (
          <label class="check">
            <input type="checkbox" name="removeSigningSecret" /> Remove the signing secret
          </label>
        )}
        <label for="wh-sigheader">Signature header name</label>
        <input
          id="wh-sigheader"
          name="signatureHeader"
          type="text"
          value={val(props, "signatureHeader", row?.signatureHeader ?? "X-Service-Signature")}
        />
        <label class="check">
          <input
            type="checkbox"
            name="standardWebhooks"
            checked={isOn(props, "standardWebhooks", row?.standardWebhooks ?? false)}
          />{" "}
          Also send Standard Webhooks headers (needs a whsec_ secret)
        </label>
      </fieldset>
      <label for="wh-concurrency">Concurrency (1 to 64; blank: the instance's setting)</label>
      <input
        id="wh-concurrency"
        name="concurrency"
        type="number"
        min="1"
        max="64"
        value={val(props, "concurrency", row?.concurrency ? String(row.concurrency) : "")}
      />
      <div>
        <button type="submit" name="action" value="save">Save webhook</button>
        <button type="submit" name="action" value="preview" class="secondary">
          Preview body
        </button>
      </div>
      <section class="preview" aria-labelledby="preview-h">
        <h2 id="preview-h">Body preview</h2>
        <p class="muted body-preview-status" role="status">
          {props.preview
            ? `Rendered by the delivery renderer against a sample record (${props.preview.contentType}).`
            : "Edit the settings (or press Preview body) to see the body a record would send."}
        </p>
        <pre class="body-preview">{props.preview?.body ?? ""}</pre>
      </section>
    </form>
  );
}

/** The secret shown this once after it was generated. */
export function SecretOnce({ secret }: { secret: string | null }) {
  if (!secret) return null;
  return (
    <section class="notice" aria-labelledby="secret-h">
      <h2 id="secret-h">Signing secret</h2>
      <p>Copy it now: it is shown this once and masked from now on.</p>
      <p class="secret">{secret}</p>
    </section>
  );
}

/** A test send's outcome. */
export function TestResult({ test }: { test: TestSendResult | null }) {
  if (!test) return null;
  const { result } = test;
  return (
    <section class={result.outcome === "delivered" ? "notice" : "error"} aria-labelledby="test-h">
      <h2 id="test-h">Test send: {result.outcome}</h2>
      <p>
        {`Status ${result.status ?? "none"}, ${Math.round(result.durationMs)} ms`}
        {result.error ? `, ${result.error}` : ""}
      </p>
      {result.snippet && <pre>{result.snippet}</pre>}
      <details>
        <summary>Body sent ({test.contentType})</summary>
        <pre>{test.body}</pre>
      </details>
    </section>
  );
}

/** The deliveries table of a configuration. */
export function Deliveries(
  { session, rows }: { session: Session; rows: WebhookDelivery[] },
) {
  if (rows.length === 0) return <p>No deliveries yet.</p>;
  return (
    <table>
      <ColumnHeads
        names={["Delivery", "Event", "Status", "Attempts", "Last response", "Actions"]}
      />
      <tbody>
        {rows.map((d) => (
          <tr>
            <td>
              <a href={`/console/deliveries/${d.id}`}>{d.createdAt}</a>
            </td>
            <td>{`${d.reason} ${d.recordId}`}</td>
            <td>
              <strong>{d.status}</strong>
            </td>
            <td>{d.attempts}</td>
            <td class="value">
              {`${d.lastStatus ?? "-"} ${d.lastError ?? ""} ${d.lastSnippet ?? ""}`.trim()}
            </td>
            <td>
              {d.status !== "skipped" && (
                <ActionButton
                  session={session}
                  action={`/console/deliveries/${d.id}/retry`}
                  label="Retry"
                />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The attempts of one delivery (the newest 50), oldest first. */
export function Attempts({ attempts }: { attempts: WebhookAttempt[] }) {
  return (
    <table>
      <ColumnHeads
        names={["#", "At", "Status", "Duration", "Outcome", "Response (first 200 characters)"]}
      />
      <tbody>
        {attempts.map((a) => (
          <tr>
            <td>{a.n}</td>
            <td>{a.at}</td>
            <td>{a.status ?? "-"}</td>
            <td>{`${Math.round(a.durationMs)} ms`}</td>
            <td>{a.outcome}</td>
            <td class="value">{[a.error, a.snippet].filter(Boolean).join(" · ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
