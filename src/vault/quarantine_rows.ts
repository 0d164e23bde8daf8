/**
 * Quarantine rows: an envelope that cannot become a record is kept with its code and reason,
 * its sealed box stored in parts beside the row, until the owner retries or discards it.
 *
 * @module
 */
import { type VaultDatabaseRow, vaultKeys, type VaultQuarantineRow } from "../store/keys.ts";
import type { Quarantine } from "./envelope_checks.ts";
import { partCount, readParts, writePartsInSteps } from "../store/parts.ts";
import { KvWrite } from "../store/write.ts";
import { addKvPart, type WritePart } from "../store/write_part.ts";
import type { QueueItem } from "./relay_link.ts";

/**
 * Parts of a quarantined ciphertext of `bytes` bytes.
 *
 * @example
 * ```ts
 * quarantineParts(100_000); // 2
 * ```
 */
export function quarantineParts(bytes: number): number {
  return partCount(bytes);
}

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
 * Stores `item` of database `db` in quarantine for the reason `why`: the ciphertext's parts
 * first, then the row (with `ack`, when given, in the row's operation). Idempotent.
 *
 * @example
 * ```ts
 * await writeQuarantine(kv, db, item, ciphertext, new Quarantine("too_large", "…", 1), null);
 * ```
 */
export async function writeQuarantine(
  kv: Deno.Kv,
  db: VaultDatabaseRow,
  item: QueueItem,
  ciphertext: Uint8Array,
  why: Quarantine,
  ack: WritePart | null,
): Promise<void> {
  const id = quarantineId(item);
  const key = vaultKeys.quarantine(id);
  const existing = await kv.get<VaultQuarantineRow>(key);
  const parts = quarantineParts(ciphertext.length);
  if (!existing.value) {
    // The parts go first, in bounded operations; the row that refers to them commits last.
    await writePartsInSteps(kv, vaultKeys.quarantineDataOf(id), ciphertext);
  }
  const row: VaultQuarantineRow = {
    id,
    databaseId: db.id,
    fingerprint: db.fingerprint,
    submissionId: item.submissionId,
    version: item.version,
    formId: item.formId,
    formVersion: why.formVersion,
    code: why.code,
    reason: why.message,
    receivedAt: item.receivedAt,
    quarantinedAt: existing.value?.quarantinedAt ?? new Date().toISOString(),
    parts,
  };
  const w = new KvWrite().set(key, row);
  if (ack) addKvPart(w, ack);
  await w.commit(kv);
}

/**
 * The database and queue item of a quarantined envelope, its ciphertext read back from its
 * parts, to process it again.
 *
 * @example
 * ```ts
 * const { db, item } = await quarantinedItem(kv, row);
 * ```
 */
export async function quarantinedItem(
  kv: Deno.Kv,
  row: VaultQuarantineRow,
): Promise<{ db: VaultDatabaseRow; item: QueueItem }> {
  const ciphertext = await quarantinedCiphertext(kv, row);
  const db = (await kv.get<VaultDatabaseRow>(vaultKeys.database(row.databaseId))).value;
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

/**
 * The sealed box of a quarantined envelope, joined from its stored parts.
 *
 * @example
 * ```ts
 * const sealed = await quarantinedCiphertext(kv, row);
 * ```
 */
export async function quarantinedCiphertext(
  kv: Deno.Kv,
  row: VaultQuarantineRow,
): Promise<Uint8Array> {
  return await readParts(kv, vaultKeys.quarantineDataOf(row.id)) ?? new Uint8Array(0);
}
