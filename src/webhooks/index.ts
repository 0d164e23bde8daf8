/**
 * Webhook delivery of saved records: the last leg of the data path (envelope in at the
 * relay → record in the vault → webhook out, here).
 *
 * - `config.ts`: the configuration model (URL, method, payload mode, bearer, custom headers,
 *   signing secret and header, field mappings, live events, Standard Webhooks option).
 * - `values.ts` and `render/`: the body, rendered once per delivery by pure functions
 *   (service default JSON, JSON template, XML template, form-encoded).
 * - `request.ts`, `send.ts`, `outcome.ts`, `guard.ts`: the request with its signatures, one
 *   attempt, its classification, Retry-After, and the optional private-network guard.
 * - `transition.ts`: a delivery's life as a pure transition (state, input) → (state, effects);
 *   `engine.ts` wires its runners: `outbox.ts` (record events from the outbox), `fanout.ts`
 *   (one delivery per configuration, each committed on its own), `dispatcher.ts` (attempts:
 *   the first at once, later ones as the store's schedule makes them due), `scheduler.ts` (a
 *   transition as one store write), `sweeper.ts` (lost schedules re-armed). The storage is
 *   behind ports: `src/store/ports/webhooks.ts` and `src/store/ports/record_events.ts`.
 * - `api/`: the owner API, one module per resource (`webhooks.ts`: configurations;
 *   `deliveries.ts`: deliveries and their attempts).
 *
 * The records port writes a record event in the same atomic operation as each record change
 * and announces it once committed (src/store/ports/record_events.ts); the engine consumes them.
 *
 * @module
 */
export {
  DEFAULT_SIGNATURE_HEADER,
  generateSigningSecret,
  maskSecret,
  parseHeaderLine,
  WebhookCreateSchema,
  WebhookPatchSchema,
} from "./config.ts";
export { createConfig, updateConfig } from "./config_writes.ts";
export {
  MAX_BODY_BYTES,
  type TestSendResult,
  WebhookEngine,
  type WebhookEngineOptions,
  type WebhookSettings,
} from "./engine.ts";
export {
  firstFormSource,
  type FormSource,
  relayFormSource,
  type VaultFormRows,
  vaultFormSource,
  type WebhookField,
} from "./forms.ts";
export { checkDestination, isBlockedAddress } from "./guard.ts";
export { classifyStatus, nextWaitSeconds, parseRetryAfter, snippetOf } from "./outcome.ts";
export {
  CONTENT_TYPES,
  defaultEntries,
  escapeXml,
  renderBody,
  renderDefault,
  renderForm,
  renderJsonTemplate,
  renderXmlTemplate,
} from "./render/index.ts";
export { buildRequest, type OutboundRequest, signBody, standardSignature } from "./request.ts";
export { type WebhookRouteDeps, webhookRoutes } from "./api/index.ts";
export { type WebhookView, WebhookViewSchema } from "./api/webhooks.ts";
export { type AttemptResult, sendRequest } from "./send.ts";
export {
  type DeliveryEffect,
  type DeliveryInput,
  transition,
  type TransitionContext,
} from "./transition.ts";
export {
  type BlobUrlResolver,
  formatSavedAt,
  type RenderInput,
  resolveValues,
  sampleValues,
  type WebhookMeta,
  type WebhookValue,
} from "./values.ts";
