/**
 * The form page's style sheet, served as an asset (`/assets/form.{hash}.css`) or inlined by
 * the static export. Light and dark follow the system (`prefers-color-scheme`); the layout is
 * one column that fits a phone; focus is always visible for keyboard users.
 *
 * @module
 */

/** The style sheet of the form page (and of the console's form preview). */
export const FORM_CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#57606a;
--line:#8c959f;--accent:#0a5bd3;--accent-fg:#fff;--error:#b3261e;--ok:#1a7f37;--focus:#0a5bd3}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--fg:#e6edf3;
--muted:#9da7b3;--line:#6e7681;--accent:#4c9aff;--accent-fg:#0d1117;--error:#ff8a80;
--ok:#56d364;--focus:#79b8ff}}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,
"Segoe UI",Roboto,sans-serif}
main{max-width:42rem;margin:0 auto;padding:1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.5rem;padding:1rem 1.25rem}
h1{font-size:1.5rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
.field{margin:0 0 1.1rem;border:0;padding:0;min-width:0}
fieldset.field{margin-inline:0}
label,legend{display:block;font-weight:600;margin-bottom:.25rem;padding:0}
label.sub{font-weight:400;font-size:.9rem;margin:0 0 .15rem}
.check{display:flex;gap:.5rem;align-items:flex-start;margin:.2rem 0}
.check label{font-weight:400;margin:0}
.field.check>label{font-weight:600}
.field.check .hint,.field.check .error{flex-basis:100%}
.field.check{flex-wrap:wrap;margin-bottom:1.1rem}
.req{color:var(--error);margin-inline-start:.2rem}
.hint{color:var(--muted);font-size:.9rem;margin:0 0 .35rem}
.error{color:var(--error);font-weight:600;margin:.3rem 0 0}
.error::before{content:"\\26A0\\FE0E  "}
input,select,textarea,button{font:inherit;color:inherit}
input:not([type=checkbox]):not([type=radio]),select,textarea{width:100%;max-width:100%;
padding:.5rem .6rem;border:1px solid var(--line);border-radius:.35rem;background:var(--card)}
input[type=checkbox],input[type=radio]{width:1.15rem;height:1.15rem;margin:.2rem 0 0;
accent-color:var(--accent);flex:none}
[aria-invalid=true]:not(fieldset){border-color:var(--error);border-width:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.row{display:flex;gap:.5rem;flex-wrap:wrap}
.row>*{flex:1 1 10rem;min-width:0}
.row>.inline{flex:0 1 auto;display:flex;gap:.5rem;align-items:center}
.inline label.sub{margin:0;white-space:nowrap}
.inline select{width:auto}
button{cursor:pointer;border-radius:.35rem;padding:.55rem 1.1rem;border:1px solid var(--accent);
background:var(--accent);color:var(--accent-fg);font-weight:600}
button.secondary{background:transparent;color:var(--accent);margin-top:.4rem;padding:.35rem .8rem}
button:disabled{opacity:.55;cursor:not-allowed}
img.preview{display:block;max-width:100%;max-height:14rem;margin-top:.5rem;border-radius:.35rem}
.upload{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap;margin-top:.4rem}
.upload progress{flex:1 1 8rem;height:.8rem}
.status{font-size:.9rem;color:var(--muted)}
.notice{border-left:4px solid var(--accent);padding:.5rem .75rem;margin:0 0 1rem;
background:var(--bg);overflow-wrap:anywhere}
.notice.bad{border-color:var(--error)}
.notice.good{border-color:var(--ok)}
.notice.closed{margin-bottom:0}
.notice.closed p{margin:.25rem 0}
.owner-message{white-space:pre-line}
.trust{margin:0 0 1rem;font-size:.9rem;color:var(--muted);overflow-wrap:anywhere}
.trust strong{color:var(--fg)}
.trust .key{color:var(--fg);white-space:nowrap}
.draft{border:1px dashed var(--line);border-radius:.35rem;padding:.5rem .75rem;margin:0 0 1rem;
font-size:.9rem}
.draft p{margin:0}
.actions{margin-top:1.25rem;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9rem;
overflow-wrap:anywhere}
a{color:var(--accent)}
footer{color:var(--muted);font-size:.85rem;margin-top:1rem;text-align:center}
[hidden]{display:none!important}
`;
