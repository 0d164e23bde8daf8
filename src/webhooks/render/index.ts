/**
 * Renders a webhook body in the configured payload mode.
 *
 * @module
 */
import type { WebhookMode } from "../../store/ports/webhooks.ts";
import type { RenderInput } from "../values.ts";
import { renderDefault } from "./default.ts";
import { renderForm } from "./form.ts";
import { renderJsonTemplate } from "./json_template.ts";
import { renderXmlTemplate } from "./xml_template.ts";

export { defaultEntries, renderDefault } from "./default.ts";
export { renderForm } from "./form.ts";
export { renderJsonTemplate } from "./json_template.ts";
export { escapeXml, renderXmlTemplate } from "./xml_template.ts";

/** The Content-Type each payload mode sends. */
export const CONTENT_TYPES: Readonly<Record<WebhookMode, string>> = {
  default: "application/json; charset=utf-8",
  json_template: "application/json; charset=utf-8",
  xml_template: "application/xml; charset=utf-8",
  form: "application/x-www-form-urlencoded",
};

/** The parts of a configuration a body depends on. */
export interface BodySettings {
  mode: WebhookMode;
  template: string | null;
  mappings: Record<string, string>;
}

/**
 * Renders the body of `input` per `settings`, with its Content-Type.
 *
 * @example
 * ```ts
 * const { body, contentType } = renderBody({ mode: "default", template: null, mappings: {} }, input);
 * ```
 */
export function renderBody(
  settings: BodySettings,
  input: RenderInput,
): { body: string; contentType: string } {
  const contentType = CONTENT_TYPES[settings.mode];
  switch (settings.mode) {
    case "default":
      return { body: renderDefault(input, settings.mappings), contentType };
    case "form":
      return { body: renderForm(input, settings.mappings), contentType };
    case "json_template":
      return { body: renderJsonTemplate(settings.template ?? "", input), contentType };
    case "xml_template":
      return { body: renderXmlTemplate(settings.template ?? "", input), contentType };
  }
}
