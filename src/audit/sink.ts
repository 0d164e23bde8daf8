/**
 * Where the vault, the webhooks and the console report what people do: an {@link AuditLog}
 * takes one {@link AuditEvent} per action (never a value, a secret or an email body). The
 * default sink keeps nothing; the audit log (src/audit) is one that appends.
 *
 * @module
 */

/** The actions the audit log knows. */
export type AuditAction =
  | "sign_in"
  | "sign_in_failed"
  | "sign_out"
  | "second_factor_added"
  | "second_factor_removed"
  | "passkey_added"
  | "passkey_removed"
  | "recovery_code_used"
  | "password_set"
  | "person_created"
  | "member_invited"
  | "member_joined"
  | "member_role_changed"
  | "member_removed"
  | "token_created"
  | "token_revoked"
  | "form_created"
  | "form_updated"
  | "form_published"
  | "form_closed"
  | "form_reopened"
  | "form_deleted"
  | "webhook_created"
  | "webhook_updated"
  | "webhook_deleted"
  | "webhook_secret_revealed"
  | "record_viewed"
  | "records_exported"
  | "record_deleted"
  | "record_created"
  | "record_updated"
  | "key_exported"
  | "backup_created"
  | "database_created";

/** One action: who (a person, and the token used), on what, how it went. */
export interface AuditEvent {
  action: AuditAction;
  personId: string | null;
  tokenId?: string;
  databaseId?: string;
  target?: { kind: string; id: string };
  outcome?: "ok" | "failure";
  detail?: Record<string, string | number | boolean>;
}

/** Takes the events of actions. */
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
