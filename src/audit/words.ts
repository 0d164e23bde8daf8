/**
 * The audit log's actions in plain words, as the console's Audit page shows them: one map, so
 * every action of the vocabulary (src/store/ports/audit.ts) has its words (a new action without
 * them does not type-check).
 *
 * @module
 */
import type { AuditAction } from "../store/ports/audit.ts";

/** Each action as a short sentence without its subject ("signed in", "viewed a record"). */
export const ACTION_WORDS: Readonly<Record<AuditAction, string>> = {
  sign_in: "signed in",
  sign_in_failed: "failed to sign in",
  sign_out: "signed out",
  second_factor_added: "added a second factor",
  second_factor_removed: "removed a second factor",
  passkey_added: "added a passkey",
  passkey_removed: "removed a passkey",
  recovery_code_used: "used a recovery code",
  password_set: "set a password",
  person_created: "created a person",
  member_invited: "invited a member",
  member_joined: "joined a database",
  member_role_changed: "changed a member's role",
  member_removed: "removed a member",
  token_created: "created an API token",
  token_revoked: "revoked an API token",
  form_created: "created a form",
  form_updated: "changed a form",
  form_published: "published a form",
  form_closed: "closed a form",
  form_reopened: "reopened a form",
  form_deleted: "deleted a form",
  webhook_created: "added a webhook",
  webhook_updated: "changed a webhook",
  webhook_deleted: "removed a webhook",
  webhook_secret_revealed: "was shown a webhook's signing secret",
  record_viewed: "viewed a record",
  records_exported: "exported records",
  record_deleted: "deleted a record",
  record_created: "added a record",
  record_updated: "edited a record",
  key_exported: "exported a database's private key",
  backup_created: "made a backup",
  database_created: "created a database",
};
