/**
 * Configuration writes as the owner API and the console make them: the port's results
 * (`false`: the id is taken, or the configuration changed meanwhile; a row over the store's
 * limit) become the domain errors the owner sees (409 and 413 once mapped).
 *
 * @module
 */
import { Conflict, TooLarge } from "../errors/index.ts";
import type { WebhookConfig, WebhookConfigs } from "../store/ports/webhooks.ts";
import { WriteTooLargeError } from "../store/ports/limits.ts";

/** Runs a configuration write; a row over what the store holds is a 413. */
async function sized<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof WriteTooLargeError)) throw err;
    throw new TooLarge("webhook_too_large", "The webhook configuration exceeds 64 KiB");
  }
}

/**
 * Stores new configuration `row`.
 *
 * @throws {Conflict} when its id is taken; {TooLarge} when it is too large to store.
 * @example
 * ```ts
 * await createConfig(engine.webhooks, newConfig(formId, input).row);
 * ```
 */
export async function createConfig(configs: WebhookConfigs, row: WebhookConfig) {
  if (!await sized(() => configs.createConfig(row))) {
    throw new Conflict("conflict", `Webhook id "${row.id}" is taken`);
  }
}

/**
 * Replaces configuration `before` by `after` and clears its failure flag.
 *
 * @throws {Conflict} when it changed meanwhile; {TooLarge} when it is too large to store.
 * @example
 * ```ts
 * await updateConfig(engine.webhooks, before, patchConfig(before, input).row);
 * ```
 */
export async function updateConfig(
  configs: WebhookConfigs,
  before: WebhookConfig,
  after: WebhookConfig,
) {
  if (!await sized(() => configs.updateConfig(before, after))) {
    throw new Conflict("conflict", `Webhook "${before.id}" changed meanwhile; try again`);
  }
}
