/**
 * The island of the console's one-time link pages (`/console/assets/ticket.js`): an invitation
 * (`/console/invitations#<secret>`) or a set-password link (`/console/set-password#<secret>`).
 * The secret rides in the URL fragment, which the browser never sends; this copies it into the
 * page form's field marked `data-fragment-secret` (unless the server already filled it, after a
 * refused attempt) and takes it out of the address bar and the history. Without a secret, it
 * shows the element marked `data-no-secret` and disables the form.
 *
 * @module
 */

const field = document.querySelector<HTMLInputElement>("input[data-fragment-secret]");
const secret = decodeURIComponent(location.hash.slice(1));
if (field && secret && !field.value) field.value = secret;
if (location.hash) history.replaceState(history.state, "", location.pathname + location.search);
if (field && !field.value) {
  document.querySelector<HTMLElement>("[data-no-secret]")?.removeAttribute("hidden");
  field.form?.querySelectorAll("input, button").forEach((e) => e.setAttribute("disabled", ""));
}
