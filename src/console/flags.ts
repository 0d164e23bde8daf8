/**
 * Flagged webhook failures, gathered for the front page and a form's pages.
 *
 * @module
 */
import type { WebhookConfig, WebhookFlag } from "../store/ports/webhooks.ts";
import type { WebhookEngine } from "../webhooks/index.ts";

/** A configuration with its flag. */
export interface FlaggedWebhook {
  config: WebhookConfig;
  flag: WebhookFlag;
}

/**
 * The flagged webhook configurations of the forms `formIds`, in form order.
 *
 * @example
 * ```ts
 * const flagged = await flaggedWebhooks(engine, ["contact"]);
 * ```
 */
export async function flaggedWebhooks(
  engine: WebhookEngine,
  formIds: string[],
): Promise<FlaggedWebhook[]> {
  const out: FlaggedWebhook[] = [];
  for (const formId of formIds) {
    const configs = await engine.webhooks.configsOf(formId);
    if (configs.length === 0) continue;
    const flags = await engine.webhooks.flags(configs.map((c) => c.id));
    for (const config of configs) {
      const flag = flags.get(config.id);
      if (flag) out.push({ config, flag });
    }
  }
  return out;
}

/** A sentence for a flag: why the webhook needs the owner. */
export function flagReason(flag: WebhookFlag): string {
  const what = flag.reason === "permanent"
    ? "failed permanently"
    : flag.reason === "exhausted"
    ? "ran out of retries"
    : "is blocked (its file URLs could not be made)";
  const detail = [
    flag.status !== null ? `HTTP ${flag.status}` : null,
    flag.error,
  ].filter(Boolean).join(": ");
  return `A delivery ${what}${detail ? ` (${detail})` : ""} at ${flag.at}`;
}
