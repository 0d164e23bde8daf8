/**
 * Signing in to the console: the page (fields "Email" and "Password", button "Sign in", and
 * "Sign in with a passkey"), the second step for a person with a second factor (a code from
 * the authenticator app, a passkey, or "Use a recovery code"), and the passkey ceremonies'
 * JSON endpoints the passkey island (src/web/islands/passkey.ts) posts to. The decisions are
 * src/people/sign_in.ts's; this renders them and starts the session.
 *
 * Before a session exists, every form and ceremony carries the token of the sign-in cookie
 * (double submit). The second step's ticket lives in an HttpOnly cookie of its own.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { getCookie } from "hono/cookie";
import { publicBaseUrl } from "../config/index.ts";
import { timingSafeEqual } from "../crypto/hmac.ts";
import { RateLimited } from "../errors/index.ts";
import { clientIp } from "../http/client_ip.ts";
import { httpError } from "../http/errors.ts";
import { AddressRanges } from "../ip/address.ts";
import { relyingParty } from "../people/passkeys.ts";
import {
  SECOND_STEP_MS,
  type SecondFactors,
  type SignedIn,
  type SignIn,
} from "../people/sign_in.ts";
import { PASSKEY_SCRIPT_PATH } from "./assets.ts";
import {
  clearConsoleCookie,
  type ConsoleDeps,
  type ConsoleEnv,
  CSRF_FIELD,
  field,
  formBody,
  SECOND_STEP_COOKIE,
  setConsoleCookie,
  SIGN_IN_COOKIE,
  startSession,
} from "./context.ts";
import { ErrorBox, html, Page, SubmitRow } from "./layout.tsx";
import { CodeField } from "./password_fields.tsx";

/** The one answer to a wrong email or password (no hint which). */
export const WRONG_SIGN_IN = "That email and password do not match an account.";

/** A sign-in refused by the limits, in plain words. */
function limitedText(err: RateLimited): string {
  return `Too many sign-in attempts from this address or for this account. ` +
    `Wait ${err.retryAfterSeconds} seconds, then try again.`;
}

function PasskeyButton(
  { csrf, base, label }: { csrf: string; base: string; label: string },
) {
  return (
    <>
      <button
        type="button"
        class="secondary"
        data-passkey="sign-in"
        data-options={`${base}/options`}
        data-verify={`${base}/verify`}
        data-csrf={csrf}
        data-status="passkey-status"
      >
        {label}
      </button>
      <p id="passkey-status" role="status" class="muted"></p>
    </>
  );
}

function SignInPage({ csrf, error, email }: { csrf: string; error?: string; email?: string }) {
  return (
    <Page title="Sign in" session={null} scripts={[PASSKEY_SCRIPT_PATH]}>
      <ErrorBox text={error} />
      <form method="post" action="/console/sign-in">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username webauthn"
          required
          value={email}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
        />
        <SubmitRow label="Sign in" />
      </form>
      <h2>Or</h2>
      <PasskeyButton
        csrf={csrf}
        base="/console/sign-in/passkey"
        label="Sign in with a passkey"
      />
      <p class="muted">
        No password yet? Use the one-time link your administrator gave you to set one.
      </p>
    </Page>
  );
}

function SecondStepPage(
  { csrf, factors, recovery, error }: {
    csrf: string;
    factors: SecondFactors;
    recovery: boolean;
    error?: string;
  },
) {
  return (
    <Page title="Second step" session={null} scripts={[PASSKEY_SCRIPT_PATH]}>
      <ErrorBox text={error} />
      {recovery
        ? (
          <form method="post" action="/console/sign-in/second-factor">
            <input type="hidden" name={CSRF_FIELD} value={csrf} />
            <p>Type one of the recovery codes you saved. Each code works once.</p>
            <label for="recovery">Recovery code</label>
            <input
              id="recovery"
              name="recovery"
              type="text"
              autocomplete="off"
              spellcheck={false}
              required
            />
            <SubmitRow label="Sign in" />
          </form>
        )
        : (
          <>
            {factors.totp && (
              <form method="post" action="/console/sign-in/second-factor">
                <input type="hidden" name={CSRF_FIELD} value={csrf} />
                <CodeField label="Code from your authenticator app" />
                <SubmitRow label="Continue" />
              </form>
            )}
            {factors.passkeys > 0 && (
              <PasskeyButton
                csrf={csrf}
                base="/console/sign-in/second-factor/passkey"
                label="Use a passkey"
              />
            )}
          </>
        )}
      <p>
        {recovery
          ? <a href="/console/sign-in/second-factor">Use your app or a passkey instead</a>
          : <a href="/console/sign-in/second-factor?recovery=1">Use a recovery code</a>}
      </p>
      <p>
        <a href="/console">Start again</a>
      </p>
    </Page>
  );
}

function expiredPage() {
  return html(
    <Page title="Sign in" session={null}>
      <ErrorBox text="The sign-in form expired or was not sent by this console." />
      <p>
        <a href="/console">Sign in again</a>
      </p>
    </Page>,
  );
}

/** The sign-in page with a fresh form token (and `error`, answered `status`). */
export function signInPage(
  c: Context<ConsoleEnv>,
  deps: ConsoleDeps,
  error?: string,
  status: ContentfulStatusCode = 401,
) {
  const csrf = crypto.getRandomValues(new Uint8Array(24)).toBase64({ alphabet: "base64url" });
  setConsoleCookie(c, deps.config, SIGN_IN_COOKIE, csrf, 3600);
  return c.html(html(<SignInPage csrf={csrf} error={error} />), error ? status : 200);
}

/**
 * Mounts the sign-in steps; `afterSignIn(personId)` is where a new session goes first (the
 * Security page when a second factor is required and missing).
 */
export function signInRoutes(
  deps: ConsoleDeps,
  signIn: SignIn,
  afterSignIn: (personId: string) => Promise<string>,
): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const proxies = new AddressRanges(deps.config.server.trusted_proxies);
  const addressOf = (c: Context) => clientIp(c, proxies);
  const rp = () => relyingParty(publicBaseUrl(deps.config));

  /** The sign-in cookie's token when the request presents it too, else null. */
  const formToken = (c: Context, presented: string | null | undefined) => {
    const expected = getCookie(c, SIGN_IN_COOKIE);
    return expected && presented && timingSafeEqual(expected, presented) ? expected : null;
  };

  const signedIn = async (c: Context<ConsoleEnv>, done: SignedIn) => {
    await startSession(c, deps, done.person, done, SIGN_IN_COOKIE);
    clearConsoleCookie(c, deps.config, SECOND_STEP_COOKIE);
    return await afterSignIn(done.person.id);
  };

  const secondStep = (
    c: Context<ConsoleEnv>,
    csrf: string,
    factors: SecondFactors,
    error?: string,
  ) =>
    c.html(
      html(
        <SecondStepPage
          csrf={csrf}
          factors={factors}
          recovery={c.req.query("recovery") === "1"}
          error={error}
        />,
      ),
      error ? 401 : 200,
    );

  app.post("/console/sign-in", async (c) => {
    const body = await formBody(c);
    const csrf = formToken(c, field(body, CSRF_FIELD));
    if (!csrf) return c.html(expiredPage(), 403);
    const email = field(body, "email");
    const page = (error: string, status: ContentfulStatusCode) =>
      c.html(html(<SignInPage csrf={csrf} error={error} email={email} />), status);
    try {
      const outcome = await signIn.password(email, String(body.password ?? ""), addressOf(c));
      if (outcome.kind === "refused") return page(WRONG_SIGN_IN, 401);
      if (outcome.kind === "signed_in") return c.redirect(await signedIn(c, outcome), 303);
      setConsoleCookie(c, deps.config, SECOND_STEP_COOKIE, outcome.ticket, SECOND_STEP_MS / 1000);
      return c.redirect("/console/sign-in/second-factor", 303);
    } catch (err) {
      if (err instanceof RateLimited) return page(limitedText(err), 429);
      throw err;
    }
  });

  app.get("/console/sign-in/second-factor", async (c) => {
    const csrf = getCookie(c, SIGN_IN_COOKIE);
    const pending = await signIn.pendingStep(getCookie(c, SECOND_STEP_COOKIE));
    if (!csrf || !pending) return c.redirect("/console", 303);
    return secondStep(c, csrf, pending.factors);
  });

  app.post("/console/sign-in/second-factor", async (c) => {
    const body = await formBody(c);
    const csrf = formToken(c, field(body, CSRF_FIELD));
    if (!csrf) return c.html(expiredPage(), 403);
    const ticket = getCookie(c, SECOND_STEP_COOKIE);
    const pending = await signIn.pendingStep(ticket);
    if (!ticket || !pending) return c.redirect("/console", 303);
    const { factors } = pending;
    const answer = "recovery" in body
      ? { recovery: field(body, "recovery") }
      : { totp: field(body, "code") };
    try {
      const outcome = await signIn.secondFactor(ticket, answer, addressOf(c));
      if (outcome.kind === "signed_in") return c.redirect(await signedIn(c, outcome), 303);
      if (outcome.kind === "refused") {
        clearConsoleCookie(c, deps.config, SECOND_STEP_COOKIE);
        return signInPage(c, deps, "Too many wrong codes, or the sign-in expired: start again.");
      }
      setConsoleCookie(c, deps.config, SECOND_STEP_COOKIE, outcome.ticket, SECOND_STEP_MS / 1000);
      return secondStep(c, csrf, factors, "That code is not right. Try again.");
    } catch (err) {
      if (err instanceof RateLimited) return secondStep(c, csrf, factors, limitedText(err));
      throw err;
    }
  });

  /** A JSON ceremony step: `{…}` or `{ error }` in words with the error's status. */
  const ceremony =
    (run: (c: Context<ConsoleEnv>) => Promise<Record<string, unknown>>) =>
    async (c: Context<ConsoleEnv>) => {
      if (!formToken(c, c.req.header("x-csrf-token"))) {
        return c.json({ error: "The sign-in page expired: reload it." }, 403);
      }
      try {
        return c.json(await run(c));
      } catch (err) {
        const known = httpError(err);
        if (!known) throw err;
        return c.json({ error: known.body.error.message }, known.status as ContentfulStatusCode);
      }
    };

  const passkeyDone = async (c: Context<ConsoleEnv>, secondStep: string | null) => {
    const body = await c.req.json().catch(() => ({}));
    const outcome = await signIn.passkey(rp(), body?.ticket, body?.response, secondStep);
    if (outcome.kind === "refused") return { error: "That passkey was not accepted." };
    return { redirect: await signedIn(c, outcome) };
  };

  app.post(
    "/console/sign-in/passkey/options",
    ceremony((c) => signIn.passkeyOptions(rp(), addressOf(c))),
  );
  app.post("/console/sign-in/passkey/verify", ceremony((c) => passkeyDone(c, null)));
  app.post(
    "/console/sign-in/second-factor/passkey/options",
    ceremony(async (c) => {
      const pending = await signIn.pendingStep(getCookie(c, SECOND_STEP_COOKIE));
      if (!pending) return { error: "The sign-in expired: start again." };
      return await signIn.passkeyOptions(rp(), addressOf(c), pending.personId);
    }),
  );
  app.post(
    "/console/sign-in/second-factor/passkey/verify",
    ceremony((c) => passkeyDone(c, getCookie(c, SECOND_STEP_COOKIE) ?? "")),
  );
  return app;
}
