/**
 * Quarantine rows: an envelope that cannot become a record is kept with its code and reason,
 * its sealed box beside the row (the quarantine port), until the owner retries or discards it.
 *
 * @module
 */
import type { VaultDatabase, VaultDatabasesPort } from "../store/ports/vault_databases.ts";
import type { QuarantinedEnvelope, QuarantinePort } from "../store/ports/quarantine.ts";
import type { WritePart } from "../store/ports/write_part.ts";
import type { Quarantine } from "./envelope_checks.ts";
import type { QueueItem } from "./relay_link.ts";

/**
 * The quarantine row id of an envelope version: `{submissionId}.{version}`.
 *
 * @example
 * ```ts
 * quarantineId({ submissionId: "ab".repeat(16), version: 2 }); // "abab….2"
 * ```
 */
export function quarantineId(item: { submissionId: string; version: number }): string {
  return `${item.submissionId}.${item.version}`;
}

/**
 * Stores `item` of database `db` in quarantine for the reason `why`, with `ack` (when given)
 * in the row's write. Idempotent.
 *
 * @example
 * ```ts
 * await writeQuarantine(store.quarantine, db, item, sealed, new Quarantine("too_large", "…", 1), null);
 * ```
 */
export async function writeQuarantine(
  quarantine: QuarantinePort,
  db: VaultDatabase,
  item: QueueItem,
  ciphertext: Uint8Array,
  why: Quarantine,
  ack: WritePart | null,
): Promise<void> {
  await quarantine.save(
    {
      id: quarantineId(item),
      databaseId: db.id,
      fingerprint: db.fingerprint,
      submissionId: item.submissionId,
      version: item.version,
      formId: item.formId,
      formVersion: why.formVersion,
      code: why.code,
      reason: why.message,
      receivedAt: item.receivedAt,
    },
    ciphertext,
    ack,
  );
}

/**
 * The database and queue item of a quarantined envelope, its ciphertext read back, to
 * process it again.
 *
 * @example
 * ```ts
 * const { db, item } = await quarantinedItem(store, row);
 * ```
 */
export async function quarantinedItem(
  store: { quarantine: QuarantinePort; vaultDatabases: VaultDatabasesPort },
  row: QuarantinedEnvelope,
): Promise<{ db: VaultDatabase; item: QueueItem }> {
  const ciphertext = await store.quarantine.ciphertext(row.id) ?? new Uint8Array(0);
  const db = await store.vaultDatabases.get(row.databaseId);
  if (!db) throw new Error(`Database "${row.databaseId}" of quarantined ${row.id} is gone`);
  const item: QueueItem = {
    seq: 0,
    submissionId: row.submissionId,
    version: row.version,
    formId: row.formId,
    recipientPubkey: db.publicKey,
    submitterId: null,
    receivedAt: row.receivedAt,
    ciphertext: ciphertext.toBase64(),
  };
  return { db, item };
}
