/**
 * Where the vault, the webhooks and the console report what people do: an {@link AuditLog}
 * takes one {@link AuditEvent} per action (never a value, a secret or an email body). The
 * default sink keeps nothing; the audit log (src/audit) is one that appends.
 *
 * @module
 */
import type { AuditAction, AuditEvent } from "../store/ports/audit.ts";

export type { AuditAction, AuditEvent } from "../store/ports/audit.ts";

/** Takes the events of actions (src/audit/log.ts's `AuditLog` is one). */
export interface AuditLog {
  record(event: AuditEvent): void;
}

/**
 * The event of `action` done by a person (and the token they used, if any).
 *
 * @example
 * ```ts
 * audit.record(actionBy(person, "form_created", { databaseId, target: { kind: "form", id } }));
 * ```
 */
export function actionBy(
  who: { personId: string; tokenId: string | null },
  action: AuditAction,
  rest: Omit<AuditEvent, "action" | "personId" | "tokenId"> = {},
): AuditEvent {
  return {
    action,
    personId: who.personId,
    ...(who.tokenId ? { tokenId: who.tokenId } : {}),
    ...rest,
  };
}

/**
 * The sink that keeps nothing (until the audit log is wired).
 *
 * @example
 * ```ts
 * noAudit.record({ action: "form_created", personId: "p1" });
 * ```
 */
export const noAudit: AuditLog = { record: () => {} };
