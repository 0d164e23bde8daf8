/**
 * The custom XML template body: the owner's XML text with `{{fieldId}}` placeholders.
 *
 * @module
 */
import type { RenderInput } from "../values.ts";
import { lookup, PLACEHOLDER_SOURCE, textOf } from "./_common.ts";

const PLACEHOLDER = new RegExp(PLACEHOLDER_SOURCE, "g");

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

/** Characters XML 1.0 does not allow at all (not even as references). */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Escapes text for XML content or attribute values: `& < > " '` become entities, and
 * characters XML cannot carry (control characters, lone surrogates) become U+FFFD.
 *
 * @example
 * ```ts
 * escapeXml('a < b & "c"'); // "a &lt; b &amp; &quot;c&quot;"
 * ```
 */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML_CHAR, "\uFFFD").replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/**
 * Renders an XML template: every placeholder becomes its value as XML-escaped text (null is
 * empty, a list is its items joined with ", "), built-in tokens included; a placeholder
 * matching no field is empty.
 *
 * @example
 * ```ts
 * renderXmlTemplate("<name>{{name}}</name>", input); // "<name>Ada &amp; Co</name>"
 * ```
 */
export function renderXmlTemplate(template: string, input: RenderInput): string {
  return template.replace(PLACEHOLDER, (_, id: string) => {
    const found = lookup(input, id);
    return found.kind === "none" ? "" : escapeXml(textOf(found.value));
  });
}
