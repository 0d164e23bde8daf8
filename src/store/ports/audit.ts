/**
 * The port of the audit log: one append-only, hash-chained log per instance of who did what
 * (src/audit records, verifies, exports and prunes it; this stores). Entries never hold content:
 * an {@link AuditEvent} names an action, who did it and on what, never a value or a secret.
 *
 * Guarantees both backends honour: `seq` is gapless and increasing across every process of one
 * store (an append whose predecessor moved is built again on the new one); entries are never
 * changed, only pruned from the oldest, together with the signed checkpoint of the last pruned
 * entry in the same atomic write, so the chain stays verifiable from that checkpoint.
 *
 * @module
 */

/** The actions the log records (issue 29's vocabulary). */
export const AUDIT_ACTIONS = [
  "sign_in",
  "sign_in_failed",
  "sign_out",
  "second_factor_added",
  "second_factor_removed",
  "passkey_added",
  "passkey_removed",
  "recovery_code_used",
  "password_set",
  "person_created",
  "member_invited",
  "member_joined",
  "member_role_changed",
  "member_removed",
  "token_created",
  "token_revoked",
  "form_created",
  "form_updated",
  "form_published",
  "form_closed",
  "form_reopened",
  "form_deleted",
  "webhook_created",
  "webhook_updated",
  "webhook_deleted",
  "webhook_secret_revealed",
  "record_viewed",
  "records_exported",
  "record_deleted",
  "record_created",
  "record_updated",
  "key_exported",
  "backup_created",
  "database_created",
] as const;

/** One action of {@link AUDIT_ACTIONS}. */
export type AuditAction = typeof AUDIT_ACTIONS[number];

/** What happened: never values, never secrets, never email bodies. */
export interface AuditEvent {
  action: AuditAction;
  /** The person who acted; null when nobody is known (a failed sign-in, the instance itself). */
  personId: string | null;
  /** The API token the person acted with. */
  tokenId?: string;
  /** The database the action concerns. */
  databaseId?: string;
  /** What was acted on (`{ kind: "form", id }`, `{ kind: "record", id }`, …). */
  target?: { kind: string; id: string };
  outcome?: "ok" | "failure";
  /** Small facts about the action (a role, a count, a format); never a value or a secret. */
  detail?: Record<string, string | number | boolean>;
}

/** The position of the log: an entry's `seq` and `hash`. */
export interface AuditHead {
  seq: number;
  /** Lowercase hex SHA-256 of the entry (src/audit/chain.ts). */
  hash: string;
}

/** One entry of the log, chained to the one before by `prevHash`. */
export interface AuditEntry {
  /** 1, 2, … without gaps. */
  seq: number;
  /** ISO 8601 time of the append. */
  at: string;
  /** The previous entry's `hash` (the genesis hash for seq 1, a checkpoint's after pruning). */
  prevHash: string;
  event: AuditEvent;
  /** Lowercase hex SHA-256 over {seq, at, prevHash, event} (src/audit/chain.ts). */
  hash: string;
}

/** The signed position of the last pruned entry: where verifying starts after pruning. */
export interface AuditCheckpoint extends AuditHead {
  /** ISO 8601 time of the prune. */
  at: string;
  /** Standard base64 of the Ed25519 signature of the manifest key (src/audit/chain.ts). */
  signature: string;
}

/** Which entries {@link AuditPort.list} answers, oldest first (newest first with `newestFirst`). */
export interface AuditQuery {
  /** Entries with a greater `seq` (0 or absent: from the oldest kept). */
  after?: number;
  /** Entries with a smaller `seq` (absent: up to the newest). */
  before?: number;
  /** Newest first (a page of the latest entries; the next page is `before` its last `seq`). */
  newestFirst?: boolean;
  /** At most this many (at most {@link AUDIT_LIST_MAX}). */
  limit: number;
  personId?: string;
  databaseId?: string;
  action?: AuditAction;
}

/** The most entries one {@link AuditPort.list} answers. */
export const AUDIT_LIST_MAX = 1000;

/** The most entries one {@link AuditPort.prune} removes (one atomic write on Deno KV). */
export const AUDIT_PRUNE_MAX = 500;

/** An append built on a stale head, or a prune out of order: a bug of the caller. */
export class AuditChainError extends Error {
  override name = "AuditChainError";
}

/**
 * Storage of the audit log.
 *
 * @example
 * ```ts
 * const entry = await audit.append((prev) => chainEntry(prev, event, new Date()));
 * const page = await audit.list({ after: 0, limit: 100, action: "sign_in" });
 * ```
 */
export interface AuditPort {
  /**
   * Appends the entry `build` makes on the current head (null: the log is empty and never
   * pruned). Built again on the new head when another append got there first; the entry's `seq`
   * must be the head's plus one (else {@link AuditChainError}). Answers the entry stored.
   */
  append(build: (prev: AuditHead | null) => AuditEntry): Promise<AuditEntry>;

  /** Kept entries in `seq` order, after `query.after`, matching every filter given. */
  list(query: AuditQuery): Promise<AuditEntry[]>;

  /** The last entry's position (kept after pruning), or null when nothing was ever appended. */
  head(): Promise<AuditHead | null>;

  /** The checkpoint of the last prune, or null when the log was never pruned. */
  checkpoint(): Promise<AuditCheckpoint | null>;

  /**
   * Removes the entries before `beforeSeq` and stores `checkpoint` (which must be the position
   * of entry `beforeSeq - 1`, after the current checkpoint and at most {@link AUDIT_PRUNE_MAX}
   * entries past it, else {@link AuditChainError}), in one atomic write. Answers how many
   * entries went.
   */
  prune(beforeSeq: number, checkpoint: AuditCheckpoint): Promise<number>;
}

/**
 * Whether `entry` passes the filters of `query` (its person, database and action).
 *
 * @example
 * ```ts
 * matchesAuditQuery(entry, { limit: 10, action: "sign_in" });
 * ```
 */
export function matchesAuditQuery(entry: AuditEntry, query: AuditQuery): boolean {
  return (query.personId === undefined || entry.event.personId === query.personId) &&
    (query.databaseId === undefined || entry.event.databaseId === query.databaseId) &&
    (query.action === undefined || entry.event.action === query.action);
}

/**
 * Throws {@link AuditChainError} unless `entry` follows `prev` .
 *
 * @example
 * ```ts
 * checkNext(null, entry); // entry.seq must be 1
 * ```
 */
export function checkNext(prev: AuditHead | null, entry: AuditEntry): void {
  const expected = (prev?.seq ?? 0) + 1;
  if (entry.seq !== expected) {
    throw new AuditChainError(`Audit entry seq ${entry.seq} does not follow the head: ${expected}`);
  }
}

/**
 * The first entry a prune removes; throws {@link AuditChainError} when `checkpoint` is not the
 * position of entry `beforeSeq - 1` (`last`), not past `current`, or spans more than
 * {@link AUDIT_PRUNE_MAX} entries.
 *
 * @example
 * ```ts
 * checkPrune(11, checkpoint, null, entry10); // 1
 * ```
 */
export function checkPrune(
  beforeSeq: number,
  checkpoint: AuditCheckpoint,
  current: AuditCheckpoint | null,
  last: Pick<AuditEntry, "seq" | "hash"> | null,
): number {
  const from = (current?.seq ?? 0) + 1;
  if (checkpoint.seq !== beforeSeq - 1 || beforeSeq <= from) {
    throw new AuditChainError(
      `Audit checkpoint seq ${checkpoint.seq} is not the last of a prune before ${beforeSeq}, ` +
        `past the checkpoint at ${from - 1}`,
    );
  }
  if (beforeSeq - from > AUDIT_PRUNE_MAX) {
    throw new AuditChainError(
      `A prune of ${beforeSeq - from} audit entries is over ${AUDIT_PRUNE_MAX}`,
    );
  }
  if (!last || last.hash !== checkpoint.hash) {
    throw new AuditChainError(
      `Audit checkpoint seq ${checkpoint.seq} does not match a kept entry's hash`,
    );
  }
  return from;
}
