/**
 * Accepting an invitation: `/console/invitations#<secret>` (the link an owner passed on,
 * src/people/invitations.ts). The page's island copies the secret from the fragment into the
 * form. Signed in, the person accepts with one button (the invitation must be for their email);
 * not signed in, a new person gives their name and a password, which makes their account and
 * signs them in. Either way they land on the database they joined.
 *
 * Without a session the form is guarded like the sign-in form: a double-submit CSRF token in a
 * cookie of its own.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { timingSafeEqual } from "../crypto/hmac.ts";
import { DomainError, Forbidden } from "../errors/index.ts";
import { httpError } from "../http/errors.ts";
import type { Acceptor } from "../people/invitations.ts";
import { PASSWORD_MIN } from "../people/password.ts";
import { TICKET_SCRIPT_PATH } from "./assets.ts";
import {
  type ConsoleDeps,
  type ConsoleEnv,
  CSRF_FIELD,
  field,
  formBody,
  sessionOf,
  setConsoleCookie,
  startSession,
} from "./context.ts";
import { ErrorBox, html, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";

/** The invitation form's CSRF cookie (no session yet). */
const INVITE_COOKIE = "sealpost_console_invite";

function InvitationPage(
  { session, email, csrf, secret, error }: {
    session: Session | null;
    email: string | null;
    csrf: string;
    secret: string;
    error?: string;
  },
) {
  return (
    <Page title="Accept an invitation" session={session} scripts={[TICKET_SCRIPT_PATH]}>
      <ErrorBox text={error} />
      <noscript>
        <p class="error">This page needs JavaScript to read the invitation from its link.</p>
      </noscript>
      <form method="post" action="/console/invitations">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <input type="hidden" name="secret" value={secret} data-fragment-secret="" />
        {session
          ? (
            <>
              <p>
                You are signed in as{" "}
                <strong>{email}</strong>. Accepting makes you a member of the database you were
                invited to.
              </p>
              <button type="submit">Accept the invitation</button>
            </>
          )
          : (
            <>
              <p>
                You were invited to a database on this Sealpost. Choose the name others will see and
                a password: this makes your account, for the email the invitation was sent to.
              </p>
              <label for="name">Your name</label>
              <input
                id="name"
                name="name"
                type="text"
                required
                autocomplete="name"
                maxlength={200}
              />
              <label for="password">Password</label>
              <input
                id="password"
                name="password"
                type="password"
                required
                minlength={PASSWORD_MIN}
                autocomplete="new-password"
                aria-describedby="password-hint"
              />
              <p class="muted" id="password-hint">
                At least {PASSWORD_MIN} characters. A few unrelated words make a good one.
              </p>
              <button type="submit">Create my account and join</button>
            </>
          )}
      </form>
      {!session && (
        <p class="muted">
          Already have an account with this email? <a href="/console">Sign in</a>{" "}
          first, then open the invitation link again.
        </p>
      )}
    </Page>
  );
}

/** Mounts the invitation page. */
export function invitationRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { invitations } = deps.people;
  const people = deps.vault.store.people;

  /** The page for the request's session (or none), with a fresh form token when signed out. */
  const page = async (
    c: Context<ConsoleEnv>,
    session: Session | null,
    secret = "",
    error?: string,
    status: 200 | 400 | 403 | 404 | 409 = 200,
  ) => {
    let csrf: string;
    if (session) csrf = session.csrf;
    else {
      csrf = crypto.getRandomValues(new Uint8Array(24)).toBase64({ alphabet: "base64url" });
      setConsoleCookie(c, deps.config, INVITE_COOKIE, csrf, 3600);
    }
    const email = session ? (await people.get(session.personId))?.email ?? null : null;
    return c.html(
      html(
        <InvitationPage
          session={session}
          email={email}
          csrf={csrf}
          secret={secret}
          error={error}
        />,
      ),
      status,
    );
  };

  app.get("/console/invitations", async (c) => page(c, await sessionOf(c, deps)));

  app.post("/console/invitations", async (c) => {
    const session = await sessionOf(c, deps);
    const body = await formBody(c);
    const presented = field(body, CSRF_FIELD);
    const expected = session ? session.csrf : getCookie(c, INVITE_COOKIE);
    if (!expected || !presented || !timingSafeEqual(expected, presented)) {
      throw new Forbidden("csrf_failed", "The invitation form expired: open the link again");
    }
    const secret = field(body, "secret");
    let who: Acceptor;
    if (session) {
      const person = await people.get(session.personId);
      if (!person) throw new Forbidden("csrf_failed", "Your session has ended: sign in again");
      who = { person };
    } else {
      const password = body.password;
      who = { name: field(body, "name"), password: typeof password === "string" ? password : "" };
    }
    let joined;
    try {
      joined = await invitations.accept(secret, who);
    } catch (err) {
      const known = err instanceof DomainError && httpError(err);
      if (!known) throw err;
      const status = known.status as 400 | 403 | 404 | 409;
      return page(c, session, secret, err.message, status);
    }
    if (!session) {
      const how = { method: "password", secondFactor: false } as const;
      await startSession(c, deps, joined.person, how, INVITE_COOKIE);
    }
    const done = `Welcome: you are now ${joined.role} of this database.`;
    return c.redirect(
      `/console/databases/${encodeURIComponent(joined.databaseId)}?done=${
        encodeURIComponent(done)
      }`,
      303,
    );
  });

  return app;
}
