/**
 * Field definitions (part of the form manifest): their types per kind and the zod schemas that
 * validate them. Re-exported by src/forms/fields.ts.
 *
 * @module
 */
import { z } from "zod";
import { MAX_FILE_BYTES } from "./_common.ts";
import { dateTimeMs, isDate, isDateTime } from "./field_dates.ts";

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
