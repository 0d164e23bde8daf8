/**
 * Sign-in, sign-out and the front page. `GET /console` shows the sign-in form (a field
 * "Owner token" and a button "Sign in") until a session exists, then the forms, any flagged
 * webhook failures, and a warning when the forms' address cannot work for senders elsewhere.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { timingSafeEqual } from "../crypto/hmac.ts";
import { NEED } from "../people/access.ts";
import { authenticatePerson } from "../people/person_tokens.ts";
import {
  clearConsoleCookie,
  type ConsoleDeps,
  type ConsoleEnv,
  CSRF_FIELD,
  field,
  formBody,
  SESSION_COOKIE,
  sessionOf,
  setConsoleCookie,
  SIGN_IN_COOKIE,
  startSession,
} from "./context.ts";
import { AddressWarningBox } from "./address_warning.tsx";
import { flaggedWebhooks, flagReason } from "./flags.ts";
import { ActionButton, ColumnHeads, ErrorBox, html, Notice, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";
import { DeleteFormButton, statusText } from "./lifecycle_routes.tsx";

function SignInPage({ csrf, error }: { csrf: string; error?: string }) {
  return (
    <Page title="Sign in" session={null}>
      <ErrorBox text={error} />
      <form method="post" action="/console/sign-in">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <label for="token">Owner token</label>
        <input
          id="token"
          name="token"
          type="password"
          autocomplete="off"
          required
          spellcheck={false}
        />
        <button type="submit">Sign in</button>
      </form>
      <p class="muted">
        The owner token is the <code>spo_…</code>{" "}
        token the first start wrote to the data directory's <code>credentials.json</code>.
      </p>
    </Page>
  );
}

/** Mounts sign-in, sign-out and the front page. */
export function authRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const newSignIn = () =>
    crypto.getRandomValues(new Uint8Array(24)).toBase64({ alphabet: "base64url" });

  const signInPage = (c: Context<ConsoleEnv>, error?: string) => {
    const csrf = newSignIn();
    setConsoleCookie(c, deps.config, SIGN_IN_COOKIE, csrf, 3600);
    return c.html(html(<SignInPage csrf={csrf} error={error} />), error ? 401 : 200);
  };

  app.get("/console", async (c) => {
    const session = await sessionOf(c, deps);
    if (!session) return signInPage(c);
    return c.html(html(await frontPage(deps, session, c.req.query("done"))));
  });

  app.post("/console/sign-in", async (c) => {
    const body = await formBody(c);
    const expected = getCookie(c, SIGN_IN_COOKIE);
    const presented = field(body, CSRF_FIELD);
    if (!expected || !presented || !timingSafeEqual(expected, presented)) {
      return c.html(
        html(
          <Page title="Sign in" session={null}>
            <ErrorBox text="The sign-in form expired or was not sent by this console." />
            <p>
              <a href="/console">Sign in again</a>
            </p>
          </Page>,
        ),
        403,
      );
    }
    // Until the email and password sign-in: the pasted token's person gets the session.
    const token = await authenticatePerson(deps.tokens, field(body, "token"));
    const person = token && await deps.vault.store.people.get(token.personId);
    if (!person) {
      return c.html(
        html(<SignInPage csrf={presented} error="That owner token is not valid." />),
        401,
      );
    }
    const how = { method: "password", secondFactor: false } as const;
    await startSession(c, deps, person, how, SIGN_IN_COOKIE);
    return c.redirect("/console", 303);
  });

  app.post("/console/sign-out", async (c) => {
    await deps.sessions.end(c.var.session);
    clearConsoleCookie(c, deps.config, SESSION_COOKIE);
    return c.redirect("/console", 303);
  });

  app.post("/console/sign-out-everywhere", async (c) => {
    await deps.sessions.endAll(c.var.session.personId);
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
