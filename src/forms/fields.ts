/**
 * The field schema model: field definitions (part of the form manifest) and the zod schema of
 * a submission's `values` built from them.
 *
 * One set of rules serves both sides. The sender's SDK builds the schema in `"coerce"` mode:
 * it first normalises friendly inputs ("42" to 42 for a number, "lat,lng" to a geo point,
 * "a, b" to a list, ...), then applies the strict check. The vault builds it in `"strict"` mode:
 * the strict check alone, so whatever the SDK produces passes the vault.
 *
 * Value shapes (strict): text, email, url, phone, richText: string. number: finite number.
 * boolean: boolean. date: `YYYY-MM-DD`. dateTime: ISO-8601 with seconds optional and an
 * offset (`Z` or `±HH:MM`). choice: one option string, or an array of distinct option strings
 * when `multiple`. list: array of non-empty strings. geo: `{lat, lng}`. image, attachment: a
 * {@linkcode FileRef}.
 *
 * Empty values (missing, null, a blank string, an empty array) fail a required field. For an
 * optional field they are dropped in coerce mode and become null in strict mode. A key that
 * names no field is an error in both modes.
 *
 * The definitions live in src/forms/field_defs.ts, the strict check per kind in
 * src/forms/field_checks.ts and the sender's normalisation in src/forms/field_coerce.ts; this
 * module is their public face (the SDK and the form page's island import it).
 *
 * @module
 */
import { z } from "zod";
import { checkValue, isPlainObject } from "./field_checks.ts";
import { coerceValue } from "./field_coerce.ts";
import type { FieldDef } from "./field_defs.ts";
import type { FileRef } from "./file_ref.ts";

export { FIELD_KINDS, FieldDefSchema, FieldsSchema } from "./field_defs.ts";
export type {
  AttachmentField,
  BooleanField,
  ChoiceField,
  DateField,
  DateTimeField,
  EmailField,
  FieldBase,
  FieldDef,
  FieldKind,
  FileOptions,
  GeoField,
  ImageField,
  ItemBounds,
  LengthBounds,
  ListField,
  NumberField,
  PhoneField,
  RichTextField,
  TextField,
  UrlField,
} from "./field_defs.ts";

/** A geo point in degrees. */
export interface GeoPoint {
  lat: number;
  lng: number;
}

/** A field's value once validated (strict shapes). */
export type FieldValue = string | number | boolean | string[] | GeoPoint | FileRef;

/** Validated `values`: field id to value; null marks an empty optional field (strict mode). */
export type Values = Record<string, FieldValue | null>;

/** Whether a schema normalises friendly input (sender) or only checks (vault). */
export type ValuesMode = "coerce" | "strict";

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "string" && v.trim() === "") ||
    (Array.isArray(v) && v.length === 0);
}

/** Options of {@linkcode buildValuesSchema}. */
export interface ValuesSchemaOptions {
  /** `"coerce"` (sender: normalise, then check) or `"strict"` (vault: check only). */
  mode: ValuesMode;
}

/**
 * Builds the zod schema of a submission's `values` for these fields. Each issue's `path` is
 * `[fieldId]` and its message says what was expected and what came.
 *
 * @example
 * ```ts
 * import { buildValuesSchema } from "./fields.ts";
 * const fields = [
 *   { id: "age", label: "Age", kind: "number", required: true },
 *   { id: "where", label: "Where", kind: "geo" },
 * ] as const;
 * const schema = buildValuesSchema([...fields], { mode: "coerce" });
 * schema.parse({ age: "42", where: "52.5,13.4" }); // { age: 42, where: { lat: 52.5, lng: 13.4 } }
 * ```
 */
export function buildValuesSchema(
  fields: readonly FieldDef[],
  options: ValuesSchemaOptions,
): z.ZodType<Values, Record<string, unknown>> {
  const coerceMode = options.mode === "coerce";
  const byId = new Map(fields.map((f) => [f.id, f]));
  return z.custom<Record<string, unknown>>(isPlainObject, {
    message: "values must be a JSON object",
  }).transform((input, ctx) => {
    const out: Values = {};
    for (const key of Object.keys(input)) {
      if (!byId.has(key)) {
        ctx.addIssue({ code: "custom", path: [key], message: `Unknown field "${key}"` });
      }
    }
    for (const f of fields) {
      let v = Object.hasOwn(input, f.id) ? input[f.id] : undefined;
      if (coerceMode && !isEmpty(v)) v = coerceValue(f, v);
      if (isEmpty(v)) {
        if (f.required) {
          ctx.addIssue({ code: "custom", path: [f.id], message: `Field "${f.id}" is required` });
        } else if (!coerceMode) {
          out[f.id] = null;
        }
        continue;
      }
      const error = checkValue(f, v);
      if (error) ctx.addIssue({ code: "custom", path: [f.id], message: error });
      else out[f.id] = v as FieldValue;
    }
    return out;
  });
}
