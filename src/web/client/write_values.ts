/// <reference lib="dom" />
/**
 * Puts raw values, as `readValues` (read_values.ts) read them, back into the form's controls:
 * its inverse, which restores a sender's draft (draft.ts). File fields are left alone: a draft
 * never holds files.
 *
 * @module
 */
import type { FieldDef } from "../../forms/fields.ts";

function control<T extends HTMLElement>(form: HTMLFormElement, id: string): T | null {
  return form.querySelector<T>(`#${CSS.escape(id)}`);
}

const text = (value: unknown) => typeof value === "string" ? value : "";

/** Sets the controls of one non-file field to `value`. */
function writeOne(form: HTMLFormElement, f: FieldDef, id: string, value: unknown): void {
  switch (f.kind) {
    case "boolean": {
      const box = control<HTMLInputElement>(form, id);
      if (box) box.checked = value === true;
      return;
    }
    case "dateTime": {
      const m = /^(.*?)([+-]\d\d:\d\d)?$/.exec(text(value))!;
      const local = control<HTMLInputElement>(form, id);
      const offset = control<HTMLSelectElement>(form, `${id}-offset`);
      if (local) local.value = m[1];
      if (offset && m[2]) offset.value = m[2];
      return;
    }
    case "choice": {
      const chosen = new Set(Array.isArray(value) ? value.map(String) : [text(value)]);
      const select = control<HTMLSelectElement>(form, id);
      if (select instanceof HTMLSelectElement) {
        select.value = text(value);
        return;
      }
      for (const input of form.querySelectorAll<HTMLInputElement>(`[id^="${id}-"]`)) {
        if (input.name === f.id) input.checked = chosen.has(input.value);
      }
      return;
    }
    case "geo": {
      const [lat = "", lng = ""] = text(value).split(",", 2);
      const latInput = control<HTMLInputElement>(form, `${id}-lat`);
      const lngInput = control<HTMLInputElement>(form, `${id}-lng`);
      if (latInput) latInput.value = lat;
      if (lngInput) lngInput.value = lng;
      return;
    }
    case "image":
    case "attachment":
      return;
    default: {
      const input = control<HTMLInputElement | HTMLTextAreaElement>(form, id);
      if (input) input.value = text(value);
    }
  }
}

/**
 * Sets every non-file field of `fields` that `values` names to its raw value.
 *
 * @example
 * ```ts
 * import { writeValues } from "./write_values.ts";
 * writeValues(document.querySelector("form")!, manifest.fields, { name: "Ada", agree: true });
 * ```
 */
export function writeValues(
  form: HTMLFormElement,
  fields: FieldDef[],
  values: Record<string, unknown>,
  prefix = "sp-",
): void {
  for (const f of fields) {
    if (Object.hasOwn(values, f.id)) writeOne(form, f, prefix + f.id, values[f.id]);
  }
}
