/// <reference lib="dom" />
/**
 * The set-password page's island: a set-password link is `/console/set-password#<secret>`, so
 * the secret stays in the browser (a fragment is never sent to a server, a proxy or a log).
 * This copies it into the form's field marked `data-ticket` and takes it out of the address
 * bar; without a secret, it shows the element marked `data-no-ticket` and disables the form.
 *
 * @module
 */
const field = document.querySelector<HTMLInputElement>("input[data-ticket]");
const secret = decodeURIComponent(location.hash.slice(1));
if (field && secret) {
  field.value = secret;
  history.replaceState(null, "", location.pathname);
} else if (field) {
  document.querySelector<HTMLElement>("[data-no-ticket]")?.removeAttribute("hidden");
  field.form?.querySelectorAll("input, button").forEach((e) => e.setAttribute("disabled", ""));
}
