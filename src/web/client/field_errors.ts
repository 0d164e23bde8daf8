/// <reference lib="dom" />
/**
 * Shows and clears the page's own validation messages next to their fields, marked for
 * assistive technology: the control gets `aria-invalid="true"` and its `aria-describedby`
 * names the message.
 *
 * @module
 */

function controlsOf(form: HTMLFormElement, id: string): HTMLElement[] {
  const main = form.querySelector<HTMLElement>(`#${CSS.escape(id)}`);
  if (!main) return [];
  // A group (choice, geo) marks its fieldset and every control in it.
  return main instanceof HTMLFieldSetElement
    ? [main, ...main.querySelectorAll<HTMLElement>("input, select")]
    : [main, ...form.querySelectorAll<HTMLElement>(`#${CSS.escape(id)}-offset`)];
}

function describedBy(el: HTMLElement, errId: string, on: boolean) {
  const ids = (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((s) =>
    s && s !== errId
  );
  if (on) ids.push(errId);
  if (ids.length) el.setAttribute("aria-describedby", ids.join(" "));
  else el.removeAttribute("aria-describedby");
}

/** Shows `message` next to the field `fieldId` (or clears it when `message` is null). */
export function setFieldError(
  form: HTMLFormElement,
  fieldId: string,
  message: string | null,
  prefix = "sp-",
): void {
  const id = prefix + fieldId;
  const slot = form.querySelector<HTMLElement>(`#${CSS.escape(id)}-err`);
  // Nothing to show and nothing shown: leave the page as it is (no restyle).
  if (message === null && slot?.hidden) return;
  if (slot) {
    slot.textContent = message ?? "";
    slot.hidden = message === null;
  }
  for (const el of controlsOf(form, id)) {
    if (message === null) el.removeAttribute("aria-invalid");
    else el.setAttribute("aria-invalid", "true");
    describedBy(el, `${id}-err`, message !== null);
  }
}

/**
 * Clears every field's message, then shows `errors` (field id to message) and moves the
 * focus to the first field at fault. Returns how many fields have an error.
 */
export function showFieldErrors(
  form: HTMLFormElement,
  fieldIds: string[],
  errors: Record<string, string>,
  prefix = "sp-",
): number {
  for (const id of fieldIds) setFieldError(form, id, errors[id] ?? null, prefix);
  const first = fieldIds.find((id) => errors[id] !== undefined);
  if (first !== undefined) {
    const el = form.querySelector<HTMLElement>(`#${CSS.escape(prefix + first)}`);
    const target = el instanceof HTMLFieldSetElement ? el.querySelector("input") ?? el : el;
    target?.focus();
  }
  return Object.keys(errors).filter((id) => fieldIds.includes(id)).length;
}
