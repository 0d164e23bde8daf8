/**
 * Releasing files at the relay. A record change that drops files (an update without them, a
 * delete, the retention sweep) writes a release row in its own atomic operation (a small
 * outbox: see `records.ts`); this module hands each row to the relay, which drops the
 * record's claims, and deletes the row once the relay has answered. A relay that is away
 * keeps the rows for the next run, so no release is lost.
 *
 * @module
 */
import { open } from "../crypto/sealed_box.ts";
import { SubmissionPayloadSchema } from "../forms/payload.ts";
import {
  type VaultDatabaseRow,
  type VaultFileReleaseRow,
  type VaultFormRow,
  vaultKeys,
  type VaultQuarantineRow,
  type VaultRecordRow,
} from "../store/keys.ts";
import type { VaultKeys } from "./keys.ts";
import { quarantinedCiphertext } from "./quarantine_rows.ts";
import { addFileRelease, ownedHashes, recordClaimant } from "./records.ts";
import type { RelayLink } from "./relay_link.ts";
import { KvWrite } from "../store/write.ts";

/** What one run did. */
export interface ReleaseResult {
  /** Release rows handed to the relay. */
  released: number;
  /** Rows left for the next run (the relay failed); the first error is in `error`. */
  failed: number;
  error?: string;
}

/**
 * Hands every pending file release to the relay.
 *
 * @example
 * ```ts
 * const { released, failed } = await releaseFiles(kv, vault.link);
 * ```
 */
export async function releaseFiles(kv: Deno.Kv, link: RelayLink): Promise<ReleaseResult> {
  const result: ReleaseResult = { released: 0, failed: 0 };
  const relayUsers = new Map<string, string | null>();
  const relayUserOf = async (formId: string) => {
    if (!relayUsers.has(formId)) {
      const form = (await kv.get<VaultFormRow>(vaultKeys.form(formId))).value;
      const db = form
        ? (await kv.get<VaultDatabaseRow>(vaultKeys.database(form.databaseId))).value
        : null;
      relayUsers.set(formId, db?.relayUserId ?? null);
    }
    return relayUsers.get(formId)!;
  };
  const iter = kv.list<VaultFileReleaseRow>({ prefix: vaultKeys.fileReleasesAll() });
  for await (const entry of iter) {
    const { formId, recordId, hashes } = entry.value;
    const relayUserId = await relayUserOf(formId);
    try {
      if (relayUserId) await link.release(relayUserId, hashes, recordClaimant(formId, recordId));
    } catch (err) {
      result.failed++;
      result.error ??= (err as Error).message;
      continue;
    }
    await new KvWrite().check(entry).delete(entry.key).commit(kv);
    result.released++;
  }
  return result;
}

/**
 * Adds to `op` the release of the files a quarantined envelope claimed when it was read,
 * except those its submission's live record still refers to (the claims share the record's
 * name). Nothing when the envelope cannot be opened: such an envelope claimed nothing.
 * `op` checks the record head, so a record changing meanwhile fails the commit.
 *
 * @example
 * ```ts
 * const w = new KvWrite().delete(vaultKeys.quarantine(row.id));
 * await addQuarantineRelease(kv, keys, row, w);
 * await w.commit(kv);
 * ```
 */
export async function addQuarantineRelease(
  kv: Deno.Kv,
  keys: VaultKeys,
  row: VaultQuarantineRow,
  op: KvWrite,
): Promise<void> {
  const sealed = await quarantinedCiphertext(kv, row);
  let claimed: string[];
  try {
    const pair = await keys.databaseKey(row.fingerprint);
    const plain = await open(sealed, pair.publicKey, pair.secretKey);
    const payload = SubmissionPayloadSchema.parse(JSON.parse(new TextDecoder().decode(plain)));
    claimed = ownedHashes(payload.values);
  } catch {
    return;
  }
  const head = await kv.get<VaultRecordRow>(vaultKeys.record(row.formId, row.submissionId));
  op.check(head);
  const kept = head.value && !head.value.deletedAt ? head.value.files ?? [] : [];
  addFileRelease(
    op,
    row.formId,
    row.submissionId,
    claimed.filter((hash) => !kept.includes(hash)),
  );
}
