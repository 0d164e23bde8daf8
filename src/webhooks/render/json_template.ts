/**
 * The custom JSON template body: the owner's JSON text with `{{fieldId}}` placeholders.
 *
 * @module
 */
import type { RenderInput } from "../values.ts";
import { type Lookup, lookup, PLACEHOLDER_SOURCE, textOf } from "./_common.ts";

const PLACEHOLDER = new RegExp(PLACEHOLDER_SOURCE, "y");

/** A JSON value for a wrapped (or unquoted) placeholder. */
function typed(found: Lookup): string {
  if (found.kind === "none") return "null";
  const value = found.value;
  if (Array.isArray(value)) return JSON.stringify(value.join(", "));
  return JSON.stringify(value);
}

/** JSON-escaped text for a placeholder inside a longer string. */
function escaped(found: Lookup): string {
  if (found.kind === "none") return "";
  return JSON.stringify(textOf(found.value)).slice(1, -1);
}

/**
 * Renders a JSON template. A placeholder that is the whole content of a string (`"{{id}}"`)
 * is wrapped: a number or boolean loses its quotes, a missing or null value becomes `null`
 * without quotes, text, dates and lists (items joined with ", ") stay escaped JSON strings,
 * built-in `_*` tokens are always strings, and a placeholder matching no field is `null`.
 * A placeholder inside a longer string is bare: its value as JSON-escaped text, no quote
 * removal, and a placeholder matching no field is empty. A placeholder outside any string
 * (not in the specification) renders like a wrapped one, so the result stays valid JSON.
 *
 * @example
 * ```ts
 * renderJsonTemplate('{"age": "{{age}}", "hi": "Hello {{name}}!"}', input);
 * // {"age": 42, "hi": "Hello Ada \"the\" first!"}
 * ```
 */
export function renderJsonTemplate(template: string, input: RenderInput): string {
  let out = "";
  let inString = false;
  let stringStart = -1;
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (inString && c === "\\") {
      out += template.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '"') {
      inString = !inString;
      stringStart = i;
      out += c;
      i++;
      continue;
    }
    PLACEHOLDER.lastIndex = i;
    const match = PLACEHOLDER.exec(template);
    if (!match) {
      out += c;
      i++;
      continue;
    }
    const found = lookup(input, match[1]);
    const end = i + match[0].length;
    if (!inString) {
      out += typed(found);
      i = end;
    } else if (stringStart === i - 1 && template[end] === '"') {
      out = out.slice(0, -1) + typed(found);
      inString = false;
      i = end + 1;
    } else {
      out += escaped(found);
      i = end;
    }
  }
  return out;
}
