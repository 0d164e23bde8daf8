/**
 * The set-password page of a one-time link, `{public base URL}/console/set-password#<secret>`,
 * the secret of a `set_password` ticket (src/people/tickets.ts `issueTicket`). The secret is in the
 * fragment, which no server, proxy or log ever sees; the set-password island copies it into
 * the form. Setting the password uses the link up and ends the person's sessions.
 *
 * @module
 */
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { timingSafeEqual } from "../crypto/hmac.ts";
import { Invalid } from "../errors/index.ts";
import { checkPassword } from "../people/password.ts";
import type { SignIn } from "../people/sign_in.ts";
import { TICKET_SCRIPT_PATH } from "./assets.ts";
import {
  type ConsoleDeps,
  type ConsoleEnv,
  CSRF_FIELD,
  field,
  formBody,
  setConsoleCookie,
  SIGN_IN_COOKIE,
} from "./context.ts";
import { ErrorBox, html, Page, SubmitRow } from "./layout.tsx";
import { NewPasswordFields } from "./password_fields.tsx";

function SetPasswordPage({ csrf, error }: { csrf: string; error?: string }) {
  return (
    <Page title="Set your password" session={null} scripts={[TICKET_SCRIPT_PATH]}>
      <ErrorBox text={error} />
      <p class="error" role="alert" hidden data-no-secret>
        This page needs the whole link you were given, with the part after “#”. Open the link again,
        or ask your administrator for a new one.
      </p>
      <form method="post" action="/console/set-password">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <input type="hidden" name="ticket" data-fragment-secret="" />
        <NewPasswordFields />
        <SubmitRow label="Set password" />
      </form>
    </Page>
  );
}

/** Mounts the set-password page. */
export function setPasswordRoutes(deps: ConsoleDeps, signIn: SignIn): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();

  app.get("/console/set-password", (c) => {
    const csrf = crypto.getRandomValues(new Uint8Array(24)).toBase64({ alphabet: "base64url" });
    setConsoleCookie(c, deps.config, SIGN_IN_COOKIE, csrf, 3600);
    return c.html(html(<SetPasswordPage csrf={csrf} />));
  });

  app.post("/console/set-password", async (c) => {
    const body = await formBody(c);
    const csrf = field(body, CSRF_FIELD);
    const expected = getCookie(c, SIGN_IN_COOKIE);
    const page = (error: string, status: 400 | 403 | 410) =>
      c.html(html(<SetPasswordPage csrf={csrf} error={error} />), status);
    if (!expected || !csrf || !timingSafeEqual(expected, csrf)) {
      return page("The form expired: open the link again.", 403);
    }
    const password = String(body.password ?? "");
    if (password !== String(body.confirm ?? "")) {
      return page("The two passwords differ: type the same one twice.", 400);
    }
    try {
      checkPassword(password);
    } catch (err) {
      if (err instanceof Invalid) return page(err.message, 400);
      throw err;
    }
    const person = await signIn.setPassword(field(body, "ticket"), password);
    if (!person) {
      return page(
        "This link was used already or has expired. Ask your administrator for a new one.",
        410,
      );
    }
    await deps.sessions.endAll(person.id);
    return c.html(html(
      <Page title="Your password is set" session={null}>
        <p role="status" class="notice">Your password is set. The link cannot be used again.</p>
        <p>
          <a href="/console">Sign in</a>
        </p>
      </Page>,
    ));
  });

  return app;
}
