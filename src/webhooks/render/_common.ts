/**
 * Pieces the renderers share: placeholder syntax, built-in tokens and the text form of a value.
 *
 * @module
 */
import type { RenderInput, WebhookMeta, WebhookValue } from "../values.ts";

/** `{{fieldId}}`, spaces inside the braces tolerated; group 1 is the id. */
export const PLACEHOLDER_SOURCE = String.raw`\{\{\s*([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}`;

const BUILT_INS: ReadonlySet<string> = new Set(["_recordId", "_formId", "_savedAt", "_reason"]);

/** What a placeholder names: a built-in token, a field (with its value), or nothing. */
export type Lookup =
  | { kind: "builtin"; value: string }
  | { kind: "field"; value: WebhookValue }
  | { kind: "none" };

/** Looks a placeholder id up in `input`: built-in tokens first, then field ids. */
export function lookup(input: RenderInput, id: string): Lookup {
  if (BUILT_INS.has(id)) return { kind: "builtin", value: input.meta[id as keyof WebhookMeta] };
  if (Object.hasOwn(input.values, id)) return { kind: "field", value: input.values[id] };
  return { kind: "none" };
}

/** A value as text: null is empty, a list is its items joined with ", ". */
export function textOf(value: WebhookValue): string {
  if (value === null) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}
