/**
 * The Security page's views: the password, the authenticator app (TOTP), passkeys, recovery
 * codes and the person's sessions; the TOTP set-up page (its QR code shown once) and the page
 * that shows new recovery codes once. src/console/security_routes.tsx serves them.
 *
 * @module
 */
import type { Passkey } from "../store/ports/sign_in_factors.ts";
import type { ConsoleSession } from "../store/ports/sessions.ts";
import { RECOVERY_CODE_COUNT } from "../people/recovery_codes.ts";
import { PASSKEY_SCRIPT_PATH } from "./assets.ts";
import {
  ActionButton,
  ColumnHeads,
  Csrf,
  ErrorBox,
  minuteUtc,
  Notice,
  Page,
  SubmitRow,
} from "./layout.tsx";
import { CodeField, NewPasswordFields } from "./password_fields.tsx";
import type { Session } from "./sessions.ts";

/** What the Security page shows. */
export interface SecurityView {
  session: Session;
  totp: boolean;
  passkeys: Passkey[];
  recoveryCodes: number;
  sessions: { idHash: string; session: ConsoleSession }[];
  /** The instance requires a second factor and the person has none. */
  required: boolean;
  done?: string;
  error?: string;
}

/** A time as people read it, in UTC. */
export function when(at: number | string | null): string {
  return at === null ? "never" : minuteUtc(at);
}

function PasswordSection({ session }: { session: Session }) {
  return (
    <section aria-labelledby="password-h">
      <h2 id="password-h">Password</h2>
      <form method="post" action="/console/security/password">
        <Csrf session={session} />
        <label for="current">Current password</label>
        <input
          id="current"
          name="current"
          type="password"
          autocomplete="current-password"
          required
        />
        <NewPasswordFields />
        <SubmitRow label="Change password" />
      </form>
    </section>
  );
}

function AppSection({ session, totp }: { session: Session; totp: boolean }) {
  return (
    <section aria-labelledby="app-h">
      <h2 id="app-h">Second factor: authenticator app</h2>
      {totp
        ? (
          <>
            <p>An authenticator app is set up: signing in with your password asks for its code.</p>
            <ActionButton
              session={session}
              action="/console/security/totp/remove"
              label="Remove the authenticator app"
              danger
            />
          </>
        )
        : (
          <p>
            Not set up. An app such as Aegis, FreeOTP or Google Authenticator shows a new six-digit
            code every 30 seconds. <a href="/console/security/totp">Set up an authenticator app</a>
          </p>
        )}
    </section>
  );
}

function PasskeySection({ session, passkeys }: { session: Session; passkeys: Passkey[] }) {
  return (
    <section aria-labelledby="passkeys-h">
      <h2 id="passkeys-h">Passkeys</h2>
      <p>
        A passkey signs you in without a password (“Sign in with a passkey”), and is a second factor
        after your password.
      </p>
      {passkeys.length > 0 && (
        <table tabindex={0}>
          <caption class="muted">Your passkeys</caption>
          <ColumnHeads names={["Name", "Added", "Last used", ""]} />
          <tbody>
            {passkeys.map((p) => (
              <tr>
                <td>{p.name}</td>
                <td>{when(p.createdAt)}</td>
                <td>{when(p.lastUsedAt)}</td>
                <td>
                  <ActionButton
                    session={session}
                    action="/console/security/passkeys/remove"
                    label="Remove"
                    danger
                    ariaLabel={`Remove passkey ${p.name}`}
                    fields={{ credential: p.credentialId }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <label for="passkey-name">Name of the new passkey</label>
      <input id="passkey-name" type="text" maxLength={100} placeholder="Laptop" />
      <button
        type="button"
        data-passkey="register"
        data-options="/console/security/passkeys/options"
        data-verify="/console/security/passkeys/verify"
        data-csrf={session.csrf}
        data-name-input="passkey-name"
        data-status="passkey-status"
      >
        Add a passkey
      </button>
      <p id="passkey-status" role="status" class="muted"></p>
    </section>
  );
}

function RecoverySection(
  { session, left, hasFactor }: { session: Session; left: number; hasFactor: boolean },
) {
  return (
    <section aria-labelledby="recovery-h">
      <h2 id="recovery-h">Recovery codes</h2>
      <p>
        {hasFactor
          ? `${left} of ${RECOVERY_CODE_COUNT} recovery codes left. A recovery code signs you ` +
            "in once when your app or passkey is not at hand."
          : "Recovery codes come with a second factor."}
      </p>
      {hasFactor && (
        <ActionButton
          session={session}
          action="/console/security/recovery-codes"
          label="Make new recovery codes"
        />
      )}
    </section>
  );
}

function SessionsSection(
  { session, sessions }: { session: Session; sessions: SecurityView["sessions"] },
) {
  return (
    <section aria-labelledby="sessions-h">
      <h2 id="sessions-h">Where you are signed in</h2>
      {/* Focusable: on a phone the table scrolls sideways by itself. */}
      <table tabindex={0} aria-labelledby="sessions-h">
        <ColumnHeads
          names={["Method", "Second factor", "Address", "Browser", "Signed in", "Last seen", ""]}
        />
        <tbody>
          {sessions.map(({ idHash, session: s }) => (
            <tr>
              <td>{s.method}</td>
              <td>{s.secondFactor ? "yes" : "no"}</td>
              <td>{s.address}</td>
              <td>{s.agent}</td>
              <td>{when(s.createdAt)}</td>
              <td>{when(s.seenAt)}</td>
              <td>
                {idHash === session.idHash
                  ? "This browser"
                  : (
                    <form method="post" action="/console/security/sessions/sign-out" class="inline">
                      <Csrf session={session} />
                      <input type="hidden" name="session" value={idHash} />
                      <button type="submit" class="secondary">Sign out</button>
                    </form>
                  )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ActionButton
        session={session}
        action="/console/security/sessions/sign-out-others"
        label="Sign out everywhere else"
      />
    </section>
  );
}

/** The Security page. */
export function SecurityPage(view: SecurityView) {
  const { session } = view;
  return (
    <Page title="Security" session={session} scripts={[PASSKEY_SCRIPT_PATH]}>
      <Notice text={view.done} />
      <ErrorBox text={view.error} />
      {view.required && (
        <p class="flag" role="alert">
          This console asks everyone for a second factor. Set up an authenticator app or add a
          passkey below; until then, the other pages stay closed.
        </p>
      )}
      <PasswordSection session={session} />
      <AppSection session={session} totp={view.totp} />
      <PasskeySection session={session} passkeys={view.passkeys} />
      <RecoverySection
        session={session}
        left={view.recoveryCodes}
        hasFactor={view.totp || view.passkeys.length > 0}
      />
      <SessionsSection session={session} sessions={view.sessions} />
    </Page>
  );
}

/** The TOTP set-up page: the QR code and the secret, shown once, and the first code. */
export function TotpSetupPage(
  { session, secret, qrSvg, error }: {
    session: Session;
    secret: string;
    qrSvg: string;
    error?: string;
  },
) {
  const qr = `data:image/svg+xml;base64,${new TextEncoder().encode(qrSvg).toBase64()}`;
  return (
    <Page title="Set up an authenticator app" session={session}>
      <ErrorBox text={error} />
      <ol>
        <li>In your authenticator app, add an account and scan this code:</li>
      </ol>
      <img class="qr" src={qr} width="200" height="200" alt="QR code of the authenticator key" />
      <p>
        No camera? Type this key instead: <code class="secret">{secret}</code>
      </p>
      <form method="post" action="/console/security/totp">
        <Csrf session={session} />
        <input type="hidden" name="secret" value={secret} />
        <CodeField label="The six-digit code the app shows now" />
        <SubmitRow label="Confirm" />
      </form>
      <p>
        <a href="/console/security">Cancel</a>
      </p>
    </Page>
  );
}

/** New recovery codes, shown once. */
export function RecoveryCodesPage(
  { session, codes, done }: { session: Session; codes: string[]; done?: string },
) {
  return (
    <Page title="Your recovery codes" session={session}>
      <Notice text={done} />
      <p>
        Save these codes somewhere safe (a password manager, or on paper). Each one signs you in
        once when your app or passkey is not at hand. They are not shown again; any older codes no
        longer work.
      </p>
      <ol class="secret" aria-label="Recovery codes">
        {codes.map((code) => (
          <li>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <p>
        <a href="/console/security">I saved them</a>
      </p>
    </Page>
  );
}
