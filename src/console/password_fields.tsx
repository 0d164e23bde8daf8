/**
 * Form fields the sign-in pages share: a new password typed twice with its rules in plain
 * words (the set-password page, the Security page), and a one-time code from an authenticator
 * app (the second step, the app's set-up).
 *
 * @module
 */
import { PASSWORD_MIN } from "../people/password.ts";

/** "New password" and "New password again" (fields `password`, `confirm`) with the rules. */
export function NewPasswordFields() {
  return (
    <>
      <label for="password">New password</label>
      <input
        id="password"
        name="password"
        type="password"
        autocomplete="new-password"
        aria-describedby="password-rules"
        required
      />
      <p class="muted" id="password-rules">
        {`At least ${PASSWORD_MIN} characters; nothing else is asked. A few unrelated words ` +
          "make a good password that is easy to type."}
      </p>
      <label for="confirm">New password again</label>
      <input id="confirm" name="confirm" type="password" autocomplete="new-password" required />
    </>
  );
}

/** A six-digit code from an authenticator app (field `code`), labelled `label`. */
export function CodeField({ label }: { label: string }) {
  return (
    <>
      <label for="code">{label}</label>
      <input
        id="code"
        name="code"
        type="text"
        inputmode="numeric"
        autocomplete="one-time-code"
        pattern="[0-9 ]{6,7}"
        required
      />
    </>
  );
}
