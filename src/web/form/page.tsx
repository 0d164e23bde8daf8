/**
 * The hosted form page (`GET /f/{formId}`) and its static export (`sealpost form page`): the
 * server-side render of a form's fields, with the island that verifies the manifest, validates,
 * uploads, seals and submits in the browser.
 *
 * @module
 */
import type { FieldDef } from "../../forms/fields.ts";
import { FORM_SCRIPT, FORM_STYLE } from "../assets.ts";
import { ClosedNotice } from "./closed.tsx";
import { FormFields } from "./fields.tsx";

/** How the page loads its script and style: from asset paths, or inline (static export). */
export type AssetMode = "linked" | "inline";

/** Props of {@linkcode FormPage}. */
export interface FormPageProps {
  formId: string;
  title: string;
  fields: FieldDef[];
  /** Where the island fetches the manifest from. */
  manifestUrl: string;
  /** Pin baked into the page (static export); the hosted page reads it from `#pin=`. */
  pin?: string;
  assets: AssetMode;
  /** A Content-Security-Policy for a `<meta>` (static export; the relay sends a header). */
  csp?: string;
}

/** `text` as the raw content of a `<script>` or `<style>`, which must not close it early. */
function rawText(text: string, tag: string): string {
  if (text.toLowerCase().includes(`</${tag}`)) {
    throw new Error(`The inline ${tag} contains "</${tag}" and cannot be inlined`);
  }
  return text;
}

/** The island's script and the style sheet, linked or inline. */
function Head({ assets }: { assets: AssetMode }) {
  if (assets === "inline") {
    return (
      <>
        <style dangerouslySetInnerHTML={{ __html: rawText(FORM_STYLE.body, "style") }} />
        <script
          type="module"
          dangerouslySetInnerHTML={{ __html: rawText(FORM_SCRIPT.body, "script") }}
        />
      </>
    );
  }
  return (
    <>
      <link rel="stylesheet" href={FORM_STYLE.path} />
      <script type="module" src={FORM_SCRIPT.path}></script>
    </>
  );
}

/**
 * The form page. Until the island has verified the manifest the submit button is disabled;
 * the notice says what the page is doing, and why it refuses when it does.
 *
 * @example
 * ```tsx
 * import { FormPage } from "./page.tsx";
 * const html = "<!doctype html>" + String(
 *   <FormPage formId="contact" title="Contact" fields={[]} manifestUrl="/forms/contact/manifest"
 *     assets="linked" />,
 * );
 * ```
 */
export function FormPage(props: FormPageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        {props.csp ? <meta http-equiv="Content-Security-Policy" content={props.csp} /> : null}
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" href="data:," />
        <title>{props.title || props.formId}</title>
        <Head assets={props.assets} />
      </head>
      <body>
        <main>
          <div class="card">
            <h1 id="sp-title">{props.title || props.formId}</h1>
            <div id="sp-notice" class="notice" role="status" aria-live="polite">
              Checking that this form comes from its owner…
            </div>
            <p id="sp-trust" class="trust" hidden></p>
            <section id="sp-draft" class="draft" hidden aria-label="Your draft">
              <p id="sp-draft-text"></p>
              <button type="button" id="sp-draft-forget" class="secondary" hidden>
                Forget this draft
              </button>
            </section>
            <form
              id="sp-form"
              novalidate
              data-form-id={props.formId}
              data-manifest-url={props.manifestUrl}
              data-pin={props.pin}
            >
              <div id="sp-fields">
                <FormFields fields={props.fields} />
              </div>
              <div class="actions">
                <button type="submit" id="sp-submit" disabled>Submit</button>
                <span id="sp-progress" class="status" role="status"></span>
              </div>
            </form>
            <section id="sp-receipt" hidden aria-labelledby="sp-receipt-title">
              <h2 id="sp-receipt-title" tabindex={-1}>Thank you: your answers were sent</h2>
              <p>
                They were sealed in this browser for the form's owner alone. Submission{" "}
                <code id="sp-receipt-id"></code>.
              </p>
              <p>
                To change your answers later, keep this link. Anyone who has it can change them, so
                share it with no one.
              </p>
              <p>
                <a id="sp-edit-link" href="#">Edit your answers</a>
              </p>
              <p class="mono" id="sp-edit-url"></p>
            </section>
          </div>
          <footer>End-to-end encrypted with Sealpost.</footer>
        </main>
      </body>
    </html>
  );
}

/**
 * The page of an unknown or unpublished form (status 404).
 *
 * @example
 * ```tsx
 * import { MissingFormPage } from "./page.tsx";
 * const html = String(<MissingFormPage formId="nope" />);
 * ```
 */
export function MissingFormPage({ formId }: { formId: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Form not found</title>
        <link rel="stylesheet" href={FORM_STYLE.path} />
      </head>
      <body>
        <main>
          <div class="card">
            <h1>Form not found</h1>
            <p class="notice bad">
              There is no published form “{formId}” here. Check the link you were given.
            </p>
          </div>
        </main>
      </body>
    </html>
  );
}

/** Props of {@linkcode ClosedFormPage}. */
export interface ClosedFormPageProps {
  formId: string;
  title: string;
  /** The owner's message ("" for none), shown as plain text. */
  message: string;
}

/**
 * The page of a form its owner closed (status 410): the title, that it is closed, and the
 * owner's message as plain text (escaped; its line breaks kept). No form and no script.
 *
 * @example
 * ```tsx
 * import { ClosedFormPage } from "./page.tsx";
 * const html = String(<ClosedFormPage formId="rsvp" title="RSVP" message="See you next year!" />);
 * ```
 */
export function ClosedFormPage({ formId, title, message }: ClosedFormPageProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="color-scheme" content="light dark" />
        <link rel="icon" href="data:," />
        <title>{`Closed: ${title || formId}`}</title>
        <link rel="stylesheet" href={FORM_STYLE.path} />
      </head>
      <body>
        <main>
          <div class="card">
            <h1>{title || formId}</h1>
            <div id="sp-notice" class="notice closed" role="status">
              <ClosedNotice message={message} />
            </div>
          </div>
        </main>
      </body>
    </html>
  );
}
