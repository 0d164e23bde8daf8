/**
 * The sender's normalisation of friendly field inputs ("42" to 42, "lat,lng" to a geo point,
 * "a, b" to a list, ...) before the strict check.
 *
 * @module
 */
import { isPlainObject } from "./field_checks.ts";
import type { FieldDef } from "./field_defs.ts";

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const TRUE = new Set(["true", "yes", "on", "1"]);
const FALSE = new Set(["false", "no", "off", "0"]);

function toText(v: unknown): unknown {
  return typeof v === "number" || typeof v === "boolean" || typeof v === "bigint" ? String(v) : v;
}

function toNumber(v: unknown): unknown {
  if (typeof v === "string" && DECIMAL.test(v.trim())) return Number(v.trim());
  return v;
}

/**
 * Sender-side normalisation of one non-empty value; output is then checked strictly.
 *
 * @example
 * ```ts
 * coerceValue({ id: "where", label: "Where", kind: "geo" }, "52.5, 13.4"); // {lat: 52.5, lng: 13.4}
 * ```
 */
export function coerceValue(f: FieldDef, v: unknown): unknown {
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
