/**
 * What a form control shows for a value in its strict shape (the shape a payload's `values`
 * holds): the text of an input, the name of a file.
 *
 * @module
 */
import type { FieldDef } from "../../forms/fields.ts";

/**
 * The text a field's control shows for `value`: a list joined with ", ", a geo point as
 * `lat,lng`, a file reference as its file name (or URL), a date-time as given; "" for nothing.
 *
 * @example
 * ```ts
 * import { valueText } from "./values.ts";
 * valueText({ id: "tags", label: "Tags", kind: "list" }, ["a", "b"]); // "a, b"
 * ```
 */
export function valueText(field: FieldDef, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map(String).join(", ");
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (field.kind === "geo") return `${v.lat},${v.lng}`;
    const name = v.fileName ?? v.url ?? (typeof v.dataUri === "string" ? "inline file" : "");
    return String(name);
  }
  return String(value);
}
