/**
 * The audit log's view of webhook configuration, for the owner API and the console alike: a
 * configuration created, updated or deleted, and a generated signing secret shown (once) to
 * the person who made it. The entry names the webhook and its database, never the secret.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { actionBy, type AuditLog } from "../audit/sink.ts";

/** What was done to a webhook's configuration. */
export type WebhookChange = "webhook_created" | "webhook_updated" | "webhook_deleted";

/**
 * Records `change` of webhook `webhookId` (of database `databaseId`) by `who`, and the reveal of
 * its signing secret when `secretShown`.
 *
 * @example
 * ```ts
 * reportWebhook(audit, person, "webhook_created", { webhookId: row.id, databaseId }, true);
 * ```
 */
export function reportWebhook(
  audit: AuditLog,
  who: Pick<PersonPrincipal, "personId" | "tokenId">,
  change: WebhookChange,
  { webhookId, databaseId }: { webhookId: string; databaseId: string },
  secretShown = false,
): void {
  const on = { databaseId, target: { kind: "webhook", id: webhookId } };
  audit.record(actionBy(who, change, on));
  if (secretShown) audit.record(actionBy(who, "webhook_secret_revealed", on));
}
