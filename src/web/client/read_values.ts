/// <reference lib="dom" />
/**
 * Reads the form's controls (as `FormFields` renders them) into raw values for the SDK's
 * coerce mode: strings as typed ("42", "a, b", "lat,lng"), booleans, arrays of chosen options.
 * File fields are left out: their values are file references the page builds itself.
 *
 * @module
 */
import type { FieldDef } from "../../forms/fields.ts";

function control<T extends HTMLElement>(form: HTMLFormElement, id: string): T | null {
  return form.querySelector<T>(`#${CSS.escape(id)}`);
}

/** The raw value of one non-file field, read from its controls. */
function readOne(form: HTMLFormElement, f: FieldDef, id: string): unknown {
  switch (f.kind) {
    case "boolean":
      return control<HTMLInputElement>(form, id)?.checked ?? false;
    case "dateTime": {
      const local = control<HTMLInputElement>(form, id)?.value ?? "";
      const offset = control<HTMLSelectElement>(form, `${id}-offset`)?.value ?? "+00:00";
      return local ? `${local}${offset}` : "";
    }
    case "choice": {
      const select = control<HTMLSelectElement>(form, id);
      if (select instanceof HTMLSelectElement) return select.value;
      const checked = [...form.querySelectorAll<HTMLInputElement>(`[id^="${id}-"]:checked`)]
        .filter((i) => i.name === f.id).map((i) => i.value);
      return f.multiple ? checked : checked[0] ?? "";
    }
    case "geo": {
      const lat = control<HTMLInputElement>(form, `${id}-lat`)?.value.trim() ?? "";
      const lng = control<HTMLInputElement>(form, `${id}-lng`)?.value.trim() ?? "";
      return lat === "" && lng === "" ? "" : `${lat},${lng}`;
    }
    case "image":
    case "attachment":
      return undefined;
    default:
      return control<HTMLInputElement | HTMLTextAreaElement>(form, id)?.value ?? "";
  }
}

/**
 * The raw values of every non-file field of `fields`, by field id.
 *
 * @example
 * ```ts
 * import { readValues } from "./read_values.ts";
 * const raw = readValues(document.querySelector("form")!, manifest.fields);
 * ```
 */
export function readValues(
  form: HTMLFormElement,
  fields: FieldDef[],
  prefix = "sp-",
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const f of fields) {
    const v = readOne(form, f, prefix + f.id);
    if (v !== undefined) values[f.id] = v;
  }
  return values;
}
