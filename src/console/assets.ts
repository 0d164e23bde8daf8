/**
 * The console's stylesheet, part of the module graph (no asset from outside the binary). The
 * CSP allows styles from the console's own origin only, so there are no inline styles.
 *
 * @module
 */

export { FORM_CSS } from "../web/form/style.ts";
/** The console's island (live previews), bundled by `deno task islands`. */
export { js as CONSOLE_JS } from "../web/assets/console_js.ts";

/** Where the console serves its island. */
export const CONSOLE_SCRIPT_PATH = "/console/assets/console.js";

/** The passkey island (register, sign in: src/web/islands/passkey.ts), bundled likewise. */
export { js as PASSKEY_JS } from "../web/assets/passkey_js.ts";

/** Where the console serves the passkey island (on the sign-in and Security pages only). */
export const PASSKEY_SCRIPT_PATH = "/console/assets/passkey.js";

/** The one-time link island (src/web/islands/ticket_link.ts), bundled likewise. */
export { js as TICKET_JS } from "../web/assets/ticket_link_js.ts";

/** Where the console serves the one-time link island (invitation and set-password pages). */
export const TICKET_SCRIPT_PATH = "/console/assets/ticket.js";

/** Where the console serves the form page's style sheet (for the builder's preview). */
export const FORM_STYLE_PATH = "/console/assets/form.css";

/** The console's CSS, served at `/console/assets/console.css`. */
export const CONSOLE_CSS = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #4d5661; --line: #d0d7de; --accent: #0b57d0;
  --bad: #a4130f; --bad-bg: #fdecea; --ok: #146c2e; --bg: #ffffff; --alt: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem;
  border-bottom: 1px solid var(--line); background: var(--alt); flex-wrap: wrap; }
header.top .brand { font-weight: 700; color: var(--fg); text-decoration: none; }
header.top nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; flex: 1; }
@media (max-width: 700px) { header.top nav { order: 3; flex-basis: 100%; } }
header.top form { margin: 0; }
main { padding: 1rem; max-width: 1200px; margin: 0 auto; }
a { color: var(--accent); }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--alt); }
td.value { max-width: 28rem; overflow-wrap: anywhere; white-space: pre-wrap; }
.tabs { display: flex; gap: .25rem; border-bottom: 1px solid var(--line); margin-bottom: 1rem;
  flex-wrap: wrap; }
.tabs a { padding: .4rem .8rem; text-decoration: none; border: 1px solid transparent;
  border-bottom: none; }
.tabs a[aria-current="page"] { border-color: var(--line); background: var(--bg); font-weight: 600;
  color: var(--fg); }
.flag { border: 2px solid var(--bad); background: var(--bad-bg); color: var(--bad); padding: .6rem .8rem;
  margin: .5rem 0 1rem; }
.flag a { color: var(--bad); font-weight: 600; }
.notice { border: 1px solid var(--ok); color: var(--ok); padding: .5rem .8rem; margin: .5rem 0; }
.error { border: 1px solid var(--bad); color: var(--bad); background: var(--bad-bg);
  padding: .5rem .8rem; margin: .5rem 0; }
.secret { font-family: ui-monospace, monospace; background: var(--alt); padding: .5rem;
  border: 1px dashed var(--muted); overflow-wrap: anywhere; }
form.inline { display: inline; margin: 0; }
td select { width: auto; }
label { display: block; font-weight: 600; margin-top: .6rem; }
label.check { font-weight: 400; }
input[type=text], input[type=url], input[type=password], input[type=email], input[type=number], input[type=date],
input[type=search], select, textarea { width: 100%; max-width: 40rem; padding: .35rem;
  border: 1px solid var(--muted); border-radius: 3px; font: inherit; }
textarea { min-height: 6rem; font-family: ui-monospace, monospace; }
button { font: inherit; padding: .35rem .9rem; border: 1px solid var(--accent); background: var(--accent);
  color: #fff; border-radius: 3px; cursor: pointer; margin: .5rem .25rem .25rem 0; }
button.secondary { background: var(--bg); color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
fieldset { border: 1px solid var(--line); margin: .75rem 0; padding: .5rem 1rem; }
legend { font-weight: 600; }
.filters { display: flex; gap: 1rem; flex-wrap: wrap; align-items: flex-end; }
.filters label { margin: 0; }
.muted { color: var(--muted); }
pre { background: var(--alt); padding: .5rem; overflow: auto; white-space: pre-wrap;
  overflow-wrap: anywhere; }
svg.chart { max-width: 100%; height: auto; }
/* Long unbroken text (share links, fingerprints, ids) wraps instead of widening the page. */
main a, code { overflow-wrap: anywhere; }
textarea { box-sizing: border-box; }
svg.chart rect { fill: var(--accent); }
svg.chart text { font-size: 10px; fill: var(--fg); }
img.qr { padding: 16px; background: #fff; box-sizing: content-box; }
img.inline { max-width: 240px; max-height: 240px; border: 1px solid var(--line); }
ins { background: #e6ffec; text-decoration: none; }
del { background: #ffebe9; }
.preview { border: 1px dashed var(--muted); padding: .5rem 1rem; margin: 1rem 0; }
.builder { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.5rem;
  align-items: start; }
.builder .preview { position: sticky; top: .5rem; margin: 0; }
@media (max-width: 900px) { .builder { grid-template-columns: minmax(0, 1fr); } }
/* On a phone, a wide table scrolls inside itself instead of widening the page. */
@media (max-width: 700px) { table { display: block; overflow-x: auto; } }
/* A table of class "stack" (the audit log) becomes one block per row on a phone instead,
   each cell named by its data-label. */
@media (max-width: 700px) {
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; }
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden;
    clip: rect(0 0 0 0); }
  table.stack tr { border: 1px solid var(--line); margin-bottom: .5rem; }
  table.stack td { border: 0; }
  table.stack td:empty { display: none; }
  table.stack td::before { content: attr(data-label) ": "; font-weight: 600; }
}
iframe.form-preview { width: 100%; height: 80vh; border: 1px solid var(--line); }
textarea.message { font-family: inherit; min-height: 4rem; }
.closed-message { white-space: pre-line; border-left: 4px solid var(--line); padding-left: .6rem; }
.tag { font-size: .8rem; border: 1px solid var(--muted); border-radius: 3px; padding: 0 .3rem;
  margin-left: .4rem; color: var(--muted); }
code.tag { display: inline-block; white-space: nowrap; overflow-wrap: normal; margin: .1rem .4rem .1rem 0; }
`;
