/**
 * Sign-out and the front page. `GET /console` shows the sign-in page (src/console/
 * sign_in_routes.tsx) until a session exists, then the forms, any flagged webhook failures,
 * and a warning when the forms' address cannot work for senders elsewhere.
 *
 * @module
 */
import { Hono } from "hono";
import { actionBy } from "../audit/sink.ts";
import { NEED } from "../people/access.ts";
import {
  clearConsoleCookie,
  type ConsoleDeps,
  type ConsoleEnv,
  SESSION_COOKIE,
  sessionOf,
} from "./context.ts";
import { AddressWarningBox } from "./address_warning.tsx";
import { flaggedWebhooks, flagReason } from "./flags.ts";
import { ActionButton, ColumnHeads, html, Notice, Page } from "./layout.tsx";
import { signInPage } from "./sign_in_routes.tsx";
import type { Session } from "./sessions.ts";
import { DeleteFormButton, statusText } from "./lifecycle_routes.tsx";

/**
 * Mounts sign-out and the front page (the sign-in page until a session exists; the Security
 * page first while `required(personId)`: a second factor is required and missing).
 */
export function authRoutes(
  deps: ConsoleDeps,
  required: (personId: string) => Promise<boolean>,
): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const audit = deps.vault.audit;

  app.get("/console", async (c) => {
    const session = await sessionOf(c, deps);
    if (!session) return signInPage(c, deps);
    if (await required(session.personId)) return c.redirect("/console/security", 303);
    return c.html(html(await frontPage(deps, session, c.req.query("done"))));
  });

  app.post("/console/sign-out", async (c) => {
    await deps.sessions.end(c.var.session);
    audit.record(actionBy(c.var.session, "sign_out", { detail: { sessions: 1 } }));
    clearConsoleCookie(c, deps.config, SESSION_COOKIE);
    return c.redirect("/console", 303);
  });

  app.post("/console/sign-out-everywhere", async (c) => {
    const ended = await deps.sessions.endAll(c.var.session.personId);
    audit.record(actionBy(c.var.session, "sign_out", { detail: { sessions: ended } }));
    clearConsoleCookie(c, deps.config, SESSION_COOKIE);
    return c.redirect("/console", 303);
  });

  return app;
}

/** Deleted forms of the session's databases whose records are still kept, with how many. */
async function keptRecords(deps: ConsoleDeps, session: Session) {
  const out = [];
  const gate = deps.vault.access.gate(session, NEED.read);
  for (const form of await deps.vault.forms.list(gate, { deleted: true })) {
    const records = await deps.vault.store.records.count(form.formId);
    if (records > 0) out.push({ form, records });
  }
  return out;
}

async function frontPage(deps: ConsoleDeps, session: Session, done?: string) {
  const forms = await deps.vault.forms.list(deps.vault.access.gate(session, NEED.read));
  const demoId = await deps.vault.demoFormId();
  const demo = forms.find((f) => f.formId === demoId);
  const deleted = await keptRecords(deps, session);
  const flagged = await flaggedWebhooks(deps.webhooks, forms.map((f) => f.formId));
  const titles = new Map(forms.map((f) => [f.formId, f.title]));
  return (
    <Page title="Forms" session={session}>
      <Notice text={done} />
      <AddressWarningBox config={deps.config} address={deps.vault.link.relayUrl} />
      {flagged.length > 0 && (
        <section class="flag" aria-labelledby="flagged">
          <h2 id="flagged">Webhook failures need your attention</h2>
          <ul>
            {flagged.map(({ config, flag }) => (
              <li>
                <a href={`/console/webhooks/${config.id}`}>
                  {config.name || config.url}
                </a>{" "}
                of form “{titles.get(config.formId) ?? config.formId}”: {flagReason(flag)}{" "}
                <ActionButton
                  session={session}
                  action={`/console/webhooks/${config.id}/retry-failed`}
                  label="Retry all failed"
                />
              </li>
            ))}
          </ul>
        </section>
      )}
      {forms.length === 0
        ? (
          <p>
            No forms yet. <a href="/console/forms/new">Create one</a>.
          </p>
        )
        : (
          <table>
            <caption class="muted">Your forms</caption>
            <ColumnHeads
              names={["Title", "Form id", "Status", "Version", "Published", "Records"]}
            />
            <tbody>
              {forms.map((f) => (
                <tr>
                  <td>
                    <a href={`/console/forms/${encodeURIComponent(f.formId)}`}>{f.title}</a>
                    {f.formId === demoId && <span class="tag">demo</span>}
                  </td>
                  <td>
                    <code>{f.formId}</code>
                  </td>
                  <td>{statusText(f)}</td>
                  <td>{f.schemaVersion}</td>
                  <td>{f.publishedVersion ? `v${f.publishedVersion}` : "not published"}</td>
                  <td>
                    <a href={`/console/forms/${encodeURIComponent(f.formId)}/records`}>
                      Records
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      {demo && (
        <section aria-labelledby="demo-form">
          <h2 id="demo-form">The demo form</h2>
          <p>
            {`“${demo.title}” is the demo made on the first start; its page says so. Before you ` +
              "share your own forms, delete it: it is unpublished, and its records are kept " +
              "until you delete them."}
          </p>
          <DeleteFormButton formId={demo.formId} />
        </section>
      )}
      {deleted.length > 0 && (
        <section aria-labelledby="deleted-forms">
          <h2 id="deleted-forms">Deleted forms with records</h2>
          <p class="muted">
            These forms are unpublished; their records are kept until you delete them.
          </p>
          <ul>
            {deleted.map(({ form, records }) => (
              <li>
                <a href={`/console/forms/${encodeURIComponent(form.formId)}/records`}>
                  {form.title}
                </a>{" "}
                (<code>{form.formId}</code>): {records === 1 ? "1 record" : `${records} records`}
              </li>
            ))}
          </ul>
        </section>
      )}
    </Page>
  );
}
