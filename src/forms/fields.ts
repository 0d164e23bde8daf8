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
 * @module
 */
import { z } from "zod";
import { isHttpUrl, MAX_FILE_BYTES } from "./_common.ts";
import { type FileRef, fileRefMime, FileRefSchema, fileRefSize, mimeEssence } from "./file_ref.ts";

/** Every field kind. */
export const FIELD_KINDS = [
  "text",
  "email",
  "url",
  "phone",
  "richText",
  "number",
  "boolean",
  "date",
  "dateTime",
  "choice",
  "list",
  "geo",
  "image",
  "attachment",
] as const;

/** One of {@linkcode FIELD_KINDS}. */
export type FieldKind = typeof FIELD_KINDS[number];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):(\d{2}))$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const EMAIL = z.regexes.email;
const PHONE = /^\+?[0-9 ().\/-]+$/;

/** Milliseconds since the epoch of a `YYYY-MM-DD`, or NaN if it is not a calendar date. */
function dateMs(value: string): number {
  const m = DATE.exec(value);
  if (!m) return NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const t = new Date(ms);
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d ? ms : NaN;
}

/** Milliseconds since the epoch of an ISO-8601 date-time with offset, or NaN. */
function dateTimeMs(value: string): number {
  const m = DATE_TIME.exec(value);
  if (!m) return NaN;
  const day = dateMs(`${m[1]}-${m[2]}-${m[3]}`);
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  const [oh, om] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  if (isNaN(day) || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) return NaN;
  const frac = m[7] ? Number(m[7]) * 1000 : 0;
  const offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  return day + ((h * 60 + mi) * 60 + s) * 1000 + frac - offset;
}

const isDate = (v: string): boolean => !isNaN(dateMs(v));
const isDateTime = (v: string): boolean => !isNaN(dateTimeMs(v));

/** Code points in `s`: a surrogate pair counts once, a lone surrogate once (as `[...s]` does). */
function count(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Members every field definition has. Unknown members are kept. */
export interface FieldBase {
  /** Key in `values`: a letter, then up to 63 letters, digits, `_` or `-`. */
  id: string;
  /** What the form shows. */
  label: string;
  description?: string;
  /** An empty value is an error (default false). */
  required?: boolean;
  [member: string]: unknown;
}

/** Length bounds in code points. */
export interface LengthBounds {
  minLength?: number;
  maxLength?: number;
}

/** Bounds on the number of items. */
export interface ItemBounds {
  minItems?: number;
  maxItems?: number;
}

/** Options of file fields; checked against a reference's mime and size when it has them. */
export interface FileOptions {
  /** Accepted media types: exact (`application/pdf`) or a whole type (`image/*`). */
  accept?: string[];
  maxSizeBytes?: number;
}

/** Single-line text; `pattern` (Unicode regular expression) must match the whole value. */
export interface TextField extends FieldBase, LengthBounds {
  kind: "text";
  pattern?: string;
}
/** An email address (at most `maxLength`, default 254, characters). */
export interface EmailField extends FieldBase {
  kind: "email";
  maxLength?: number;
}
/** An absolute http: or https: URL (at most `maxLength`, default 2048, characters). */
export interface UrlField extends FieldBase {
  kind: "url";
  maxLength?: number;
}
/** A phone number: 3 to 20 digits, an optional leading +, spaces and `()-./`. */
export interface PhoneField extends FieldBase {
  kind: "phone";
}
/** Formatted text (markup is the renderer's to sanitise). */
export interface RichTextField extends FieldBase, LengthBounds {
  kind: "richText";
}
/** A finite number within `min`..`max`, an integer if `integer`. */
export interface NumberField extends FieldBase {
  kind: "number";
  min?: number;
  max?: number;
  integer?: boolean;
}
/** true or false. */
export interface BooleanField extends FieldBase {
  kind: "boolean";
}
/** A calendar date `YYYY-MM-DD` within `min`..`max` (same format). */
export interface DateField extends FieldBase {
  kind: "date";
  min?: string;
  max?: string;
}
/** An instant, ISO-8601 with offset, within `min`..`max` (same format). */
export interface DateTimeField extends FieldBase {
  kind: "dateTime";
  min?: string;
  max?: string;
}
/** One of `options`, or (`multiple`) distinct options within the item bounds. */
export interface ChoiceField extends FieldBase, ItemBounds {
  kind: "choice";
  options: string[];
  multiple?: boolean;
}
/** Tags: non-empty strings, at most `maxItemLength` code points each. */
export interface ListField extends FieldBase, ItemBounds {
  kind: "list";
  maxItemLength?: number;
}
/** A point `{lat, lng}` in degrees. */
export interface GeoField extends FieldBase {
  kind: "geo";
}
/** A file reference shown inline. */
export interface ImageField extends FieldBase, FileOptions {
  kind: "image";
}
/** A file reference shown as a download. */
export interface AttachmentField extends FieldBase, FileOptions {
  kind: "attachment";
}

/** A field definition; `kind` selects the options that apply. */
export type FieldDef =
  | TextField
  | EmailField
  | UrlField
  | PhoneField
  | RichTextField
  | NumberField
  | BooleanField
  | DateField
  | DateTimeField
  | ChoiceField
  | ListField
  | GeoField
  | ImageField
  | AttachmentField;

const nonNegInt = z.number().int().min(0);
const Base = {
  /** Key in `values`: a letter, then up to 63 letters, digits, `_` or `-`. */
  id: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, {
    message: "Field id must be a letter then up to 63 of A-Z, a-z, 0-9, _ and -",
  }),
  label: z.string().max(500),
  description: z.string().max(5000).optional(),
  required: z.boolean().optional(),
};
const Bounded = {
  minLength: nonNegInt.optional(),
  maxLength: nonNegInt.optional(),
};
const compiles = (pattern: string) => {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
};
const Items = { minItems: nonNegInt.optional(), maxItems: nonNegInt.optional() };
const FileShape = {
  /** Accepted media types: exact (`application/pdf`) or a whole type (`image/*`). */
  accept: z.array(z.string().regex(/^[a-z0-9!#$&^_.+-]+\/(?:\*|[a-z0-9!#$&^_.+-]+)$/i)).min(1)
    .optional(),
  maxSizeBytes: z.number().int().min(1).max(MAX_FILE_BYTES).optional(),
};

const kindSchemas = [
  z.looseObject({
    ...Base,
    kind: z.literal("text"),
    ...Bounded,
    /** A regular expression (Unicode mode) the whole value must match. */
    pattern: z.string().max(1000).refine(compiles, "Must be a valid regular expression")
      .optional(),
  }),
  z.looseObject({ ...Base, kind: z.literal("email"), maxLength: nonNegInt.optional() }),
  z.looseObject({ ...Base, kind: z.literal("url"), maxLength: nonNegInt.optional() }),
  z.looseObject({ ...Base, kind: z.literal("phone") }),
  z.looseObject({ ...Base, kind: z.literal("richText"), ...Bounded }),
  z.looseObject({
    ...Base,
    kind: z.literal("number"),
    min: z.number().optional(),
    max: z.number().optional(),
    integer: z.boolean().optional(),
  }),
  z.looseObject({ ...Base, kind: z.literal("boolean") }),
  z.looseObject({
    ...Base,
    kind: z.literal("date"),
    min: z.string().refine(isDate, "Must be a YYYY-MM-DD date").optional(),
    max: z.string().refine(isDate, "Must be a YYYY-MM-DD date").optional(),
  }),
  z.looseObject({
    ...Base,
    kind: z.literal("dateTime"),
    min: z.string().refine(isDateTime, "Must be an ISO-8601 date-time with offset").optional(),
    max: z.string().refine(isDateTime, "Must be an ISO-8601 date-time with offset").optional(),
  }),
  z.looseObject({
    ...Base,
    kind: z.literal("choice"),
    options: z.array(z.string().min(1).max(500)).min(1).max(1000)
      .refine((o) => new Set(o).size === o.length, "Options must be distinct"),
    multiple: z.boolean().optional(),
    ...Items,
  }),
  z.looseObject({
    ...Base,
    kind: z.literal("list"),
    ...Items,
    maxItemLength: z.number().int().min(1).optional(),
  }),
  z.looseObject({ ...Base, kind: z.literal("geo") }),
  z.looseObject({ ...Base, kind: z.literal("image"), ...FileShape }),
  z.looseObject({ ...Base, kind: z.literal("attachment"), ...FileShape }),
] as const;

/**
 * Validates one field definition (see {@linkcode FieldDef}). Unknown members are kept.
 *
 * @example
 * ```ts
 * import { FieldDefSchema } from "./fields.ts";
 * FieldDefSchema.parse({ id: "age", label: "Age", kind: "number", min: 0, integer: true });
 * ```
 */
export const FieldDefSchema: z.ZodType<FieldDef> = z.discriminatedUnion("kind", kindSchemas)
  .superRefine(
    (f, ctx) => {
      const pairs: [string, string][] = [["minLength", "maxLength"], ["minItems", "maxItems"], [
        "min",
        "max",
      ]];
      for (const [lo, hi] of pairs) {
        const a = (f as Record<string, unknown>)[lo];
        const b = (f as Record<string, unknown>)[hi];
        if (a === undefined || b === undefined) continue;
        const bad = f.kind === "dateTime"
          ? dateTimeMs(a as string) > dateTimeMs(b as string)
          : (a as number | string) > (b as number | string);
        if (bad) ctx.addIssue({ code: "custom", path: [hi], message: `${hi} is below ${lo}` });
      }
    },
  );

/**
 * The `fields` of a manifest: up to 1000 definitions with distinct ids.
 *
 * @example
 * ```ts
 * import { FieldsSchema } from "./fields.ts";
 * FieldsSchema.parse([{ id: "name", label: "Name", kind: "text", required: true }]);
 * ```
 */
export const FieldsSchema: z.ZodType<FieldDef[]> = z.array(FieldDefSchema).max(1000).superRefine(
  (fields, ctx) => {
    const seen = new Set<string>();
    fields.forEach((f, i) => {
      if (seen.has(f.id)) {
        ctx.addIssue({ code: "custom", path: [i, "id"], message: `Duplicate field id "${f.id}"` });
      }
      seen.add(f.id);
    });
  },
);

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

const show = (v: unknown): string => {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null || typeof v !== "object") return String(v);
  return Array.isArray(v) ? "an array" : "an object";
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "string" && v.trim() === "") ||
    (Array.isArray(v) && v.length === 0);
}

function checkLength(s: string, f: { minLength?: number; maxLength?: number }): string | null {
  const n = count(s);
  if (f.minLength !== undefined && n < f.minLength) {
    return `Must be at least ${f.minLength} characters, got ${n}`;
  }
  if (f.maxLength !== undefined && n > f.maxLength) {
    return `Must be at most ${f.maxLength} characters, got ${n}`;
  }
  return null;
}

function checkItems(a: unknown[], f: { minItems?: number; maxItems?: number }): string | null {
  if (f.minItems !== undefined && a.length < f.minItems) {
    return `Must have at least ${f.minItems} items, got ${a.length}`;
  }
  if (f.maxItems !== undefined && a.length > f.maxItems) {
    return `Must have at most ${f.maxItems} items, got ${a.length}`;
  }
  return null;
}

function accepts(accept: string[], mime: string): boolean {
  const essence = mimeEssence(mime);
  return accept.some((a) => {
    const pattern = a.toLowerCase();
    return pattern.endsWith("/*") ? essence.startsWith(pattern.slice(0, -1)) : essence === pattern;
  });
}

/** The strict check of one non-empty value: an error message, or null when valid. */
function check(f: FieldDef, v: unknown): string | null {
  const kind = f.kind;
  const str = typeof v === "string";
  switch (f.kind) {
    case "text": {
      if (!str) return `Expected a string, got ${show(v)}`;
      if (f.pattern !== undefined && !new RegExp(`^(?:${f.pattern})$`, "u").test(v)) {
        return `Value ${show(v)} does not match the pattern ${f.pattern}`;
      }
      return checkLength(v, f);
    }
    case "richText":
      return str ? checkLength(v, f) : `Expected a string, got ${show(v)}`;
    case "email":
      if (!str || v.length > (f.maxLength ?? 254) || !EMAIL.test(v)) {
        return `Expected an email address, got ${show(v)}`;
      }
      return null;
    case "url":
      if (!str || v.length > (f.maxLength ?? 2048) || !isHttpUrl(v)) {
        return `Expected an absolute http: or https: URL, got ${show(v)}`;
      }
      return null;
    case "phone": {
      const digits = str ? v.replace(/\D/g, "").length : 0;
      if (!str || !PHONE.test(v) || digits < 3 || digits > 20) {
        return `Expected a phone number (3 to 20 digits, optional +, spaces, ()-./), got ${
          show(v)
        }`;
      }
      return null;
    }
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) return `Expected a number, got ${show(v)}`;
      if (f.integer && !Number.isInteger(v)) return `Expected an integer, got ${v}`;
      if (f.min !== undefined && v < f.min) return `Must be at least ${f.min}, got ${v}`;
      if (f.max !== undefined && v > f.max) return `Must be at most ${f.max}, got ${v}`;
      return null;
    case "boolean":
      return typeof v === "boolean" ? null : `Expected true or false, got ${show(v)}`;
    case "date":
      if (!str || !isDate(v)) return `Expected a date as YYYY-MM-DD, got ${show(v)}`;
      if (f.min !== undefined && v < f.min) return `Must be on or after ${f.min}, got ${v}`;
      if (f.max !== undefined && v > f.max) return `Must be on or before ${f.max}, got ${v}`;
      return null;
    case "dateTime": {
      const t = str ? dateTimeMs(v) : NaN;
      if (isNaN(t)) return `Expected an ISO-8601 date-time with offset, got ${show(v)}`;
      if (f.min !== undefined && t < dateTimeMs(f.min)) return `Must be at or after ${f.min}`;
      if (f.max !== undefined && t > dateTimeMs(f.max)) return `Must be at or before ${f.max}`;
      return null;
    }
    case "choice": {
      const options = f.options;
      if (!f.multiple) {
        return str && options.includes(v)
          ? null
          : `Expected one of ${JSON.stringify(options)}, got ${show(v)}`;
      }
      if (!Array.isArray(v)) return `Expected an array of options, got ${show(v)}`;
      const bad = v.find((o) => typeof o !== "string" || !options.includes(o));
      if (bad !== undefined) {
        return `Expected options of ${JSON.stringify(options)}, got ${show(bad)}`;
      }
      if (new Set(v).size !== v.length) return "Options must not repeat";
      return checkItems(v, f);
    }
    case "list": {
      if (!Array.isArray(v)) return `Expected an array of strings, got ${show(v)}`;
      const bad = v.find((s) => typeof s !== "string" || s.trim() === "");
      if (bad !== undefined) return `Expected non-empty strings, got ${show(bad)}`;
      const long = f.maxItemLength === undefined
        ? undefined
        : v.find((s: string) => count(s) > f.maxItemLength!);
      if (long !== undefined) return `Items must be at most ${f.maxItemLength} characters`;
      return checkItems(v, f);
    }
    case "geo": {
      if (!isPlainObject(v) || Object.keys(v).length !== 2) {
        return `Expected {"lat": number, "lng": number}, got ${show(v)}`;
      }
      const { lat, lng } = v;
      if (typeof lat !== "number" || !Number.isFinite(lat) || lat < -90 || lat > 90) {
        return `Expected lat within -90 to 90, got ${show(lat)}`;
      }
      if (typeof lng !== "number" || !Number.isFinite(lng) || lng < -180 || lng > 180) {
        return `Expected lng within -180 to 180, got ${show(lng)}`;
      }
      return null;
    }
    case "image":
    case "attachment": {
      const parsed = FileRefSchema.safeParse(v);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const at = first.path.length ? `${first.path.join(".")}: ` : "";
        return `Invalid file reference: ${at}${first.message}`;
      }
      const mime = fileRefMime(parsed.data);
      if (f.accept && mime !== undefined && !accepts(f.accept, mime)) {
        return `File type ${mime} is not one of ${f.accept.join(", ")}`;
      }
      const size = fileRefSize(parsed.data);
      if (f.maxSizeBytes !== undefined && size !== undefined && size > f.maxSizeBytes) {
        return `File of ${size} bytes exceeds ${f.maxSizeBytes} bytes`;
      }
      return null;
    }
    default:
      return `Unknown field kind ${show(kind)}`;
  }
}

const TRUE = new Set(["true", "yes", "on", "1"]);
const FALSE = new Set(["false", "no", "off", "0"]);

function toText(v: unknown): unknown {
  return typeof v === "number" || typeof v === "boolean" || typeof v === "bigint" ? String(v) : v;
}

function toNumber(v: unknown): unknown {
  if (typeof v === "string" && DECIMAL.test(v.trim())) return Number(v.trim());
  return v;
}

/** Sender-side normalisation of one non-empty value; output is then checked strictly. */
function coerce(f: FieldDef, v: unknown): unknown {
  const trimmed = typeof v === "string" ? v.trim() : v;
  switch (f.kind) {
    case "text":
    case "richText":
      return toText(v);
    case "email":
    case "url":
    case "phone":
      return toText(trimmed);
    case "number":
      return toNumber(v);
    case "boolean":
      if (typeof trimmed === "string") {
        const s = trimmed.toLowerCase();
        return TRUE.has(s) ? true : FALSE.has(s) ? false : v;
      }
      return v === 1 ? true : v === 0 ? false : v;
    case "date":
      if (v instanceof Date && !isNaN(v.getTime())) return v.toISOString().slice(0, 10);
      return trimmed;
    case "dateTime":
      if (v instanceof Date && !isNaN(v.getTime())) return v.toISOString();
      return typeof trimmed === "string"
        ? trimmed.replace(/^(\d{4}-\d{2}-\d{2})[ t]/, "$1T").replace(/z$/, "Z")
        : v;
    case "choice": {
      const one = (o: unknown) => {
        const s = toText(o);
        return typeof s === "string" && !f.options.includes(s) && f.options.includes(s.trim())
          ? s.trim()
          : s;
      };
      if (!f.multiple) return one(v);
      const items = Array.isArray(v) ? v : [v];
      return [...new Set(items.map(one))];
    }
    case "list": {
      const items = typeof v === "string" ? v.split(",") : v;
      if (!Array.isArray(items)) return v;
      return items.map((s) => {
        const t = toText(s);
        return typeof t === "string" ? t.trim() : t;
      }).filter((s) => s !== "");
    }
    case "geo": {
      if (typeof trimmed === "string") {
        const parts = trimmed.split(",");
        if (parts.length === 2 && parts.every((p) => DECIMAL.test(p.trim()))) {
          return { lat: Number(parts[0].trim()), lng: Number(parts[1].trim()) };
        }
        return v;
      }
      if (isPlainObject(v) && Object.keys(v).length === 2 && "lat" in v && "lng" in v) {
        return { lat: toNumber(v.lat), lng: toNumber(v.lng) };
      }
      return v;
    }
    default:
      return v;
  }
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
      if (coerceMode && !isEmpty(v)) v = coerce(f, v);
      if (isEmpty(v)) {
        if (f.required) {
          ctx.addIssue({ code: "custom", path: [f.id], message: `Field "${f.id}" is required` });
        } else if (!coerceMode) {
          out[f.id] = null;
        }
        continue;
      }
      const error = check(f, v);
      if (error) ctx.addIssue({ code: "custom", path: [f.id], message: error });
      else out[f.id] = v as FieldValue;
    }
    return out;
  });
}
