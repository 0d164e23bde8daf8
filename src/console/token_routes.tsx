/**
 * The console's "API tokens" page: the signed-in person's tokens with their last use, a form
 * to make one (name, what it may do, expiry), the new token shown once, and revoking one after
 * a confirmation. The rules are src/people/tokens.ts's.
 *
 * @module
 */
import { Hono } from "hono";
import { httpError } from "../http/errors.ts";
import { type Scope, SCOPES } from "../store/ports/person_tokens.ts";
import { ADMIN_SCOPES, SCOPE_TEXT, type TokenView } from "../people/tokens.ts";
import { type ConsoleDeps, type ConsoleEnv, field, formBody } from "./context.ts";
import { ColumnHeads, Csrf, ErrorBox, html, minuteUtc, Notice, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";

/** The expiries the form offers, in days (0: never). */
const EXPIRIES: [number, string][] = [
  [0, "Never"],
  [7, "In 7 days"],
  [30, "In 30 days"],
  [90, "In 90 days"],
  [365, "In a year"],
];

const tokenPath = (tokenId: string) => `/console/tokens/${encodeURIComponent(tokenId)}`;

/** A time as the page shows it: to the minute, UTC. */
function when(iso: string | null, none: string): string {
  return iso ? minuteUtc(iso) : none;
}

/** What the person filled in, to show the form again after an error. */
interface Posted {
  name: string;
  scopes: string[];
  expiresInDays: string;
}

/** The form that makes a token: its name, what it may do, when it expires. */
function NewTokenForm(
  { session, posted, error }: { session: Session; posted: Posted | null; error: string | null },
) {
  const offered = SCOPES.filter((s) => session.instanceAdmin || !ADMIN_SCOPES.includes(s));
  const checked = new Set(posted?.scopes ?? ["records:read"]);
  return (
    <section aria-labelledby="new-token">
      <h2 id="new-token">New token</h2>
      <form method="post" action="/console/tokens">
        <Csrf session={session} />
        <ErrorBox text={error} />
        <label for="token-name">Name</label>
        <input
          id="token-name"
          name="name"
          type="text"
          maxlength={100}
          required
          value={posted?.name ?? ""}
          aria-describedby="token-name-hint"
        />
        <p id="token-name-hint" class="muted">
          Where it is used, so you know which one to revoke: “laptop CLI”, “export script”.
        </p>
        <fieldset>
          <legend>What it may do</legend>
          {offered.map((scope) => (
            <label class="check">
              <input type="checkbox" name="scopes" value={scope} checked={checked.has(scope)} />
              {" "}
              <code>{scope}</code>: {SCOPE_TEXT[scope]}
            </label>
          ))}
          {offered.includes("relay:queue") && (
            <p class="muted">
              A <code>relay:queue</code>{" "}
              token is also the relay's key to this instance's queues, and the relay knows no
              expiry: it never expires, so choose “Never” below.
            </p>
          )}
        </fieldset>
        <label for="token-expiry">Expires</label>
        <select id="token-expiry" name="expiresInDays">
          {EXPIRIES.map(([days, text]) => (
            <option value={String(days)} selected={posted?.expiresInDays === String(days)}>
              {text}
            </option>
          ))}
        </select>
        <div>
          <button type="submit">Create token</button>
        </div>
      </form>
    </section>
  );
}

/** The new token, shown this once. */
function NewToken({ token, view }: { token: string; view: TokenView }) {
  return (
    <section class="notice" aria-labelledby="token-once">
      <h2 id="token-once">{`Your new token “${view.name}”`}</h2>
      <p>
        Copy it now (select it, then Ctrl+C or ⌘C): it is shown this once. Sealpost keeps only a
        hash of it; if you lose it, revoke it and make another.
      </p>
      <p class="secret" id="new-token-value">{token}</p>
      <p class="muted">
        Use it as <code>SEALPOST_TOKEN</code> for the <code>sealpost</code> command line, or as{" "}
        <code>Authorization: Bearer …</code> on the API.
      </p>
    </section>
  );
}

/** The person's tokens, newest first. */
function TokenTable({ rows }: { rows: TokenView[] }) {
  if (rows.length === 0) return <p>You have no API tokens.</p>;
  return (
    <table>
      <ColumnHeads names={["Name", "May do", "Created", "Expires", "Last used", "Actions"]} />
      <tbody>
        {rows.map((row) => (
          <tr>
            <td>{row.name}</td>
            <td>{row.scopes.map((s) => <code class="tag">{s}</code>)}</td>
            <td>{when(row.createdAt, "")}</td>
            <td>{when(row.expiresAt, "Never")}</td>
            <td>{when(row.lastUsedAt, "Never used")}</td>
            <td>
              <form method="get" action={`${tokenPath(row.id)}/revoke`} class="inline">
                <button type="submit" class="danger" aria-label={`Revoke “${row.name}”`}>
                  Revoke
                </button>
              </form>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The whole page; `created` after a token was made, `error` after a refused one. */
function TokensPage(props: {
  session: Session;
  rows: TokenView[];
  done?: string;
  created?: { token: string; view: TokenView };
  posted?: Posted | null;
  error?: string | null;
}) {
  return (
    <Page title="API tokens" session={props.session}>
      <Notice text={props.done} />
      {props.created && <NewToken {...props.created} />}
      <p>
        A token lets a script, the <code>sealpost</code>{" "}
        command line or a vault worker use the API as you. It never does more than you may: on each
        database it needs both your role there and the scope it was given. Revoke a token you no
        longer use; it stops at once.
      </p>
      <h2>Your tokens</h2>
      <TokenTable rows={props.rows} />
      <NewTokenForm
        session={props.session}
        posted={props.posted ?? null}
        error={props.error ?? null}
      />
    </Page>
  );
}

/** Mounts the API tokens page, making a token and revoking one (with its confirmation). */
export function tokenRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const tokens = deps.apiTokens;

  app.get("/console/tokens", async (c) => {
    const session = c.var.session;
    const rows = await tokens.list(session);
    return c.html(html(<TokensPage session={session} rows={rows} done={c.req.query("done")} />));
  });

  app.post("/console/tokens", async (c) => {
    const session = c.var.session;
    const body = await formBody(c);
    const posted: Posted = {
      name: field(body, "name"),
      scopes: [body.scopes ?? []].flat(),
      expiresInDays: field(body, "expiresInDays"),
    };
    const days = Number(posted.expiresInDays || "0");
    try {
      const created = await tokens.create(session, {
        name: posted.name,
        scopes: posted.scopes.filter((s): s is Scope => (SCOPES as string[]).includes(s)),
        expiresInDays: Number.isInteger(days) && days > 0 ? days : null,
      });
      const rows = await tokens.list(session);
      return c.html(html(<TokensPage session={session} rows={rows} created={created} />));
    } catch (err) {
      const known = httpError(err);
      if (!known) throw err;
      const rows = await tokens.list(session);
      return c.html(
        html(
          <TokensPage
            session={session}
            rows={rows}
            posted={posted}
            error={known.body.error.message}
          />,
        ),
        known.status,
      );
    }
  });

  app.get("/console/tokens/:tokenId/revoke", async (c) => {
    const session = c.var.session;
    const tokenId = c.req.param("tokenId");
    const row = await tokens.get(session, tokenId);
    return c.html(html(
      <Page title={`Revoke token “${row.name}”?`} session={session}>
        <p>
          Anything that uses it (a script, the command line, a vault worker) is refused from the
          next request on. This cannot be undone: make a new token if you need one again.
        </p>
        {row.scopes.includes("relay:queue") && (
          <p>It is a relay:queue token: the relay refuses it at once too.</p>
        )}
        <form method="post" action={`${tokenPath(tokenId)}/revoke`} class="inline">
          <Csrf session={session} />
          <button type="submit" class="danger">Revoke token</button>
        </form>{" "}
        <a href="/console/tokens">Keep it</a>
      </Page>,
    ));
  });

  app.post("/console/tokens/:tokenId/revoke", async (c) => {
    await tokens.revoke(c.var.session, c.req.param("tokenId"));
    const done = encodeURIComponent("Token revoked: it is refused from now on.");
    return c.redirect(`/console/tokens?done=${done}`, 303);
  });

  return app;
}
