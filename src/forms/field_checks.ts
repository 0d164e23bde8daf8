/**
 * The strict check of one field value per kind (the shapes src/forms/fields.ts describes).
 *
 * @module
 */
import { z } from "zod";
import { isHttpUrl } from "./_common.ts";
import type { FieldDef } from "./field_defs.ts";
import { dateTimeMs, isDate } from "./field_dates.ts";
import { fileRefMime, FileRefSchema, fileRefSize, mimeEssence } from "./file_ref.ts";

const EMAIL = z.regexes.email;
const PHONE = /^\+?[0-9 ().\/-]+$/;

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

const show = (v: unknown): string => {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null || typeof v !== "object") return String(v);
  return Array.isArray(v) ? "an array" : "an object";
};

/** Whether `v` is a non-array, non-null object. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

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

/**
 * The strict check of one non-empty value: an error message, or null when valid.
 *
 * @example
 * ```ts
 * checkValue({ id: "n", label: "N", kind: "number", max: 9 }, 12); // "Must be at most 9, got 12"
 * ```
 */
export function checkValue(f: FieldDef, v: unknown): string | null {
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
