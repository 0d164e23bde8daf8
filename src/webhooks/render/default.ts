/**
 * The service default body: one flat JSON object, metadata keys first, then one key per
 * record field.
 *
 * @module
 */
import type { RenderInput, WebhookValue } from "../values.ts";

/**
 * The keys and values of the default body, in order (the form-encoded body uses the same):
 * `_recordId`, `_formId`, `_savedAt`, `_reason`, then
 *
 * 1. with no mappings, every field under its raw id;
 * 2. with mappings, only the mapped fields, under their target keys (a mapped field the
 *    record lacks is null);
 * 3. a mapping whose target is a metadata key replaces that key's value (it keeps its place).
 *
 * @example
 * ```ts
 * const entries = defaultEntries(input, { email: "contact" });
 * [...entries.keys()]; // ["_recordId", "_formId", "_savedAt", "_reason", "contact"]
 * ```
 */
export function defaultEntries(
  input: RenderInput,
  mappings: Record<string, string>,
): Map<string, WebhookValue> {
  const entries = new Map<string, WebhookValue>(Object.entries(input.meta));
  const mapped = Object.entries(mappings);
  if (mapped.length === 0) {
    for (const [id, value] of Object.entries(input.values)) entries.set(id, value);
  } else {
    for (const [id, target] of mapped) entries.set(target, input.values[id] ?? null);
  }
  return entries;
}

/**
 * Renders the default body. Value types follow the specification: strings, numbers,
 * booleans, arrays of strings (multiple choice, lists), null for empty values.
 *
 * @example
 * ```ts
 * renderDefault(input, {});
 * // {"_recordId":"r1","_formId":"contact","_savedAt":"...","_reason":"insert","name":"Ada"}
 * ```
 */
export function renderDefault(input: RenderInput, mappings: Record<string, string>): string {
  const members: string[] = [];
  for (const [key, value] of defaultEntries(input, mappings)) {
    members.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
  }
  return `{${members.join(",")}}`;
}
