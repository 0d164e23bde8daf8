/**
 * The form-encoded body: `key=value&key=value` with the default body's keys, in its order.
 *
 * @module
 */
import type { RenderInput } from "../values.ts";
import { textOf } from "./_common.ts";
import { defaultEntries } from "./default.ts";

/**
 * Renders `application/x-www-form-urlencoded`: the key set and order of the default body;
 * values as text (null is empty, a list is its items joined with ", ", true/false), encoded
 * by the URL standard's form serializer (a space becomes `+`).
 *
 * @example
 * ```ts
 * renderForm(input, {}); // "_recordId=r1&_formId=contact&...&name=Ada+Lovelace"
 * ```
 */
export function renderForm(input: RenderInput, mappings: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const [key, value] of defaultEntries(input, mappings)) params.append(key, textOf(value));
  return params.toString();
}
