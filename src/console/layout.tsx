/**
 * The console's page frame and small shared components. Every value goes through JSX, which
 * escapes text and attributes, so submitted values render as text.
 *
 * @module
 */
import type { Child } from "hono/jsx";
import { CONSOLE_SCRIPT_PATH } from "./assets.ts";
import { CSRF_FIELD } from "./context.ts";
import type { Session } from "./sessions.ts";

/** Props of {@linkcode Page}. */
export interface PageProps {
  title: string;
  /** The signed-in session (null on the sign-in page: no navigation). */
  session: Session | null;
  /** Islands this page loads besides the console's own (e.g. the passkey island). */
  scripts?: string[];
  children?: Child;
}

/** A whole console page: head, top bar with navigation and sign-out, main content. */
export function Page({ title, session, scripts = [], children }: PageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} · Sealpost console`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/console/assets/console.css" />
        {session && <script type="module" src={CONSOLE_SCRIPT_PATH}></script>}
        {scripts.map((src) => <script type="module" src={src}></script>)}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/console">Sealpost console</a>
          {session && (
            <nav aria-label="Main">
              <a href="/console">Forms</a>
              <a href="/console/forms/new">New form</a>
              <a href="/console/quarantine">Quarantine</a>
              <a href="/console/databases">Databases</a>
              <a href="/console/tokens">API tokens</a>
              <a href="/console/security">Security</a>
              {session.instanceAdmin && <a href="/console/audit">Audit</a>}
            </nav>
          )}
          {session && (
            <form method="post" action="/console/sign-out">
              <Csrf session={session} />
              <button type="submit" class="secondary">Sign out</button>
            </form>
          )}
          {session && (
            <form method="post" action="/console/sign-out-everywhere">
              <Csrf session={session} />
              <button type="submit" class="secondary">Sign out everywhere</button>
            </form>
          )}
        </header>
        <main>
          <h1>{title}</h1>
          {children}
        </main>
      </body>
    </html>
  );
}

/** The hidden CSRF field every POST form carries. */
export function Csrf({ session }: { session: Session }) {
  return <input type="hidden" name={CSRF_FIELD} value={session.csrf} />;
}

/**
 * The header of a table: one column header per name, in order.
 *
 * @example
 * ```tsx
 * <table><ColumnHeads names={["Title", "Form id"]} /><tbody>…</tbody></table>
 * ```
 */
export function ColumnHeads({ names }: { names: string[] }) {
  return (
    <thead>
      <tr>{names.map((name) => <th scope="col">{name}</th>)}</tr>
    </thead>
  );
}

/** A form's submit button on a line of its own. */
export function SubmitRow({ label }: { label: string }) {
  return (
    <div>
      <button type="submit">{label}</button>
    </div>
  );
}

/**
 * A time to the minute in UTC, as the console's tables show one ("2026-11-28 10:30 UTC").
 *
 * @example
 * ```ts
 * minuteUtc("2026-11-28T10:30:16.581Z"); // "2026-11-28 10:30 UTC"
 * ```
 */
export function minuteUtc(at: number | string): string {
  return new Date(at).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/**
 * A POST form with only a button (delete, retry, ...), CSRF included; `fields` are hidden
 * inputs it sends, `ariaLabel` names the button for a screen reader when its label alone would
 * not say what it acts on (a "Remove" in every row).
 */
export function ActionButton(
  { session, action, label, danger, ariaLabel, fields = {} }: {
    session: Session;
    action: string;
    label: string;
    danger?: boolean;
    ariaLabel?: string;
    fields?: Record<string, string>;
  },
) {
  return (
    <form method="post" action={action} class="inline">
      <Csrf session={session} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={danger ? "danger" : "secondary"} aria-label={ariaLabel}>
        {label}
      </button>
    </form>
  );
}

/** The tabs of a form's pages in the console. */
export function FormTabs({ formId, current }: { formId: string; current: string }) {
  const base = `/console/forms/${encodeURIComponent(formId)}`;
  const tabs: [string, string][] = [
    ["Overview", base],
    ["Records", `${base}/records`],
    ["Builder", `${base}/builder`],
    ["Versions", `${base}/versions`],
    ["Share", `${base}/share`],
    ["Webhooks", `${base}/webhooks`],
  ];
  return (
    <nav class="tabs" aria-label="Form">
      {tabs.map(([label, href]) => (
        <a href={href} aria-current={label === current ? "page" : undefined}>{label}</a>
      ))}
    </nav>
  );
}

/** A success notice (after a redirect, from `?done=`). */
export function Notice({ text }: { text: string | undefined }) {
  return text ? <p class="notice" role="status">{text}</p> : null;
}

/** An error message box. */
export function ErrorBox({ text }: { text: string | undefined | null }) {
  return text ? <p class="error" role="alert">{text}</p> : null;
}

/** Renders a page element to a full HTML document string. */
export function html(page: unknown): string {
  return "<!doctype html>" + String(page);
}

/** A whole error page (no navigation: the session may be gone). */
export function errorPage(message: string): string {
  return html(
    <Page title="Something went wrong" session={null}>
      <ErrorBox text={message} />
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </Page>,
  );
}
