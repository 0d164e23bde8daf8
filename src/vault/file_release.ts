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
import type { FileReleasesPort } from "../store/ports/file_releases.ts";
import type { FormsPort } from "../store/ports/forms.ts";
import type { QuarantinedEnvelope, QuarantinePort } from "../store/ports/quarantine.ts";
import { ownedHashes, type RecordsPort } from "../store/ports/records.ts";
import type { VaultDatabasesPort } from "../store/ports/vault_databases.ts";
import type { WritePart } from "../store/ports/write_part.ts";
import type { VaultKeys } from "./keys.ts";
import type { RelayLink } from "./relay_link.ts";

/**
 * The name a record's claims on its files carry at the relay.
 *
 * @example
 * ```ts
 * recordClaimant("f12", "a1b2"); // "f12/a1b2"
 * ```
 */
export function recordClaimant(formId: string, recordId: string): string {
  return `${formId}/${recordId}`;
}

/** Release rows read per page. */
const PAGE = 100;

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
 * const { released, failed } = await releaseFiles(store, vault.link);
 * ```
 */
export async function releaseFiles(
  store: { fileReleases: FileReleasesPort; forms: FormsPort; vaultDatabases: VaultDatabasesPort },
  link: RelayLink,
): Promise<ReleaseResult> {
  const result: ReleaseResult = { released: 0, failed: 0 };
  const relayUsers = new Map<string, string | null>();
  const relayUserOf = async (formId: string) => {
    if (!relayUsers.has(formId)) {
      const form = await store.forms.get(formId);
      const db = form ? await store.vaultDatabases.get(form.databaseId) : null;
      relayUsers.set(formId, db?.relayUserId ?? null);
    }
    return relayUsers.get(formId)!;
  };
  // Rows the relay refused stay for the next run; a page starts after the last one seen.
  let after: string | undefined;
  while (true) {
    const page = await store.fileReleases.pending(PAGE, after);
    for (const { id, formId, recordId, hashes } of page) {
      const relayUserId = await relayUserOf(formId);
      try {
        if (relayUserId) await link.release(relayUserId, hashes, recordClaimant(formId, recordId));
      } catch (err) {
        result.failed++;
        result.error ??= (err as Error).message;
        continue;
      }
      await store.fileReleases.done(id);
      result.released++;
    }
    if (page.length < PAGE) return result;
    after = page.at(-1)!.id;
  }
}

/**
 * The release of the files a quarantined envelope claimed when it was read, except those its
 * submission's live record still refers to (the claims share the record's name), as a part
 * of the write that discards it; the part fails that write if the record changes meanwhile.
 * Null when the envelope cannot be opened: such an envelope claimed nothing.
 *
 * @example
 * ```ts
 * const part = await quarantineRelease(store, keys, row);
 * await store.quarantine.discard(row.id, part);
 * ```
 */
export async function quarantineRelease(
  store: { quarantine: QuarantinePort; records: RecordsPort },
  keys: VaultKeys,
  row: QuarantinedEnvelope,
): Promise<WritePart | null> {
  const sealed = await store.quarantine.ciphertext(row.id);
  if (!sealed) return null;
  let claimed: string[];
  try {
    const pair = await keys.databaseKey(row.fingerprint);
    const plain = await open(sealed, pair.publicKey, pair.secretKey);
    const payload = SubmissionPayloadSchema.parse(JSON.parse(new TextDecoder().decode(plain)));
    claimed = ownedHashes(payload.values);
  } catch {
    return null;
  }
  return await store.records.releaseUnkept(row.formId, row.submissionId, claimed);
}
