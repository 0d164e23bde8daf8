/// <reference lib="dom" />
/**
 * The console's passkey island (`@simplewebauthn/browser`): binds the buttons marked
 * `data-passkey="register"` (the Security page's "Add a passkey") and `data-passkey="sign-in"`
 * ("Sign in with a passkey") to the WebAuthn ceremonies. A button says where to go:
 *
 * - `data-options="{url}"`: POSTed (with `X-CSRF-Token: {data-csrf}`), answers JSON
 *   `{ options, ticket }`: the options of `navigator.credentials.create()` / `.get()` as
 *   src/people/passkeys.ts makes them, and the id of the ticket that keeps their challenge;
 * - `data-verify="{url}"`: POSTed the JSON `{ ticket, response, name }` (the browser's answer;
 *   `name`: the value of the input `data-name-input="{id}"` names, for a new passkey), answers
 *   `{ redirect }` (followed) or `{ error }` (shown);
 * - `data-status="{id}"`: the element (a live region) that shows progress and errors.
 *
 * Without WebAuthn in the browser, the button is disabled and the status says so. Nothing here
 * is needed to sign in with a password.
 *
 * @module
 */
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
} from "@simplewebauthn/browser";

type Answer = { options?: unknown; ticket?: string; redirect?: string; error?: string };

async function post(url: string, csrf: string, body: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
      "x-csrf-token": csrf,
    },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({})) as Answer;
  if (!response.ok && !answer.error) answer.error = `The server answered ${response.status}.`;
  return answer;
}

/** A browser-side failure in words (cancelled, timed out, already registered, …). */
function explain(err: unknown): string {
  const name = err instanceof WebAuthnError ? err.cause instanceof Error ? err.cause.name : "" : "";
  if (err instanceof Error && (err.name === "NotAllowedError" || name === "NotAllowedError")) {
    return "The passkey request was cancelled or timed out. Try again when ready.";
  }
  if (err instanceof WebAuthnError && err.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED") {
    return "This authenticator already holds a passkey for your account.";
  }
  return `The passkey could not be used: ${err instanceof Error ? err.message : String(err)}`;
}

async function ceremony(button: HTMLButtonElement, say: (text: string) => void) {
  const { passkey, options: optionsUrl, verify, csrf = "", nameInput } = button.dataset;
  say(
    passkey === "register"
      ? "Follow your browser's prompt to create the passkey…"
      : "Choose a passkey…",
  );
  const start = await post(optionsUrl!, csrf, {});
  if (start.error || !start.options) return say(start.error ?? "No passkey options came back.");
  let response: unknown;
  try {
    response = passkey === "register"
      ? await startRegistration({ optionsJSON: start.options as never })
      : await startAuthentication({ optionsJSON: start.options as never });
  } catch (err) {
    return say(explain(err));
  }
  const name = nameInput
    ? (document.getElementById(nameInput) as HTMLInputElement | null)?.value ?? ""
    : "";
  const done = await post(verify!, csrf, { ticket: start.ticket, response, name });
  if (done.redirect) {
    say(passkey === "register" ? "Passkey added." : "Signed in.");
    location.assign(done.redirect);
  } else {
    say(done.error ?? "The passkey was not accepted.");
  }
}

for (const button of document.querySelectorAll<HTMLButtonElement>("button[data-passkey]")) {
  const status = button.dataset.status ? document.getElementById(button.dataset.status) : null;
  const say = (text: string) => {
    if (status) status.textContent = text;
  };
  if (!browserSupportsWebAuthn()) {
    button.disabled = true;
    say("This browser cannot use passkeys.");
    continue;
  }
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await ceremony(button, say);
    } catch (err) {
      say(`Something went wrong: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      button.disabled = false;
    }
  });
}
