/**
 * Blob metadata in Deno KV: one row per blob, the user's usage (kept in the same atomic
 * operations, so the quota is exact), and the index of unclaimed blobs the orphan sweep reads.
 *
 * @module
 */
import { blobKeys, type BlobMetaRow, type BlobUsageRow } from "../store/keys.ts";
import type { BlobKey } from "./key.ts";

/** Storing a blob would take its user past the quota. */
export class QuotaExceededError extends Error {
  override name = "QuotaExceededError";
  constructor(
    readonly userId: string,
    readonly sizeBytes: number,
    readonly usedBytes: number,
    readonly quotaBytes: number,
  ) {
    super(
      `Storing ${sizeBytes} more bytes would take user "${userId}" past the quota of ` +
        `${quotaBytes} bytes (${usedBytes} used)`,
    );
  }
}

/** Optimistic KV operations retry on a conflicting write; this many times at most. */
const MAX_ATTEMPTS = 64;

async function retrying<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== undefined) return result;
  }
  throw new Error(`${what}: still conflicting after ${MAX_ATTEMPTS} attempts`);
}

const EMPTY_USAGE: BlobUsageRow = { bytes: 0, count: 0 };

function unclaimedKey(meta: BlobMetaRow) {
  return blobKeys.unclaimed(Date.parse(meta.uploadedAt), meta.userId, meta.hash);
}

/**
 * The metadata of a blob, or null when it is not stored.
 *
 * @example
 * ```ts
 * const meta = await getBlobMeta(kv, { userId, hash }); // { mime, sizeBytes, … } | null
 * ```
 */
export async function getBlobMeta(kv: Deno.Kv, key: BlobKey): Promise<BlobMetaRow | null> {
  return (await kv.get<BlobMetaRow>(blobKeys.meta(key.userId, key.hash))).value;
}

/**
 * What a user's blobs take up.
 *
 * @example
 * ```ts
 * const { bytes, count } = await getUsage(kv, userId);
 * ```
 */
export async function getUsage(kv: Deno.Kv, userId: string): Promise<BlobUsageRow> {
  return (await kv.get<BlobUsageRow>(blobKeys.usage(userId))).value ?? EMPTY_USAGE;
}

/**
 * Throws {@linkcode QuotaExceededError} when a blob of `sizeBytes` would not fit in the user's
 * quota. Asked of every blob alike, stored already or not, so that a full quota answers the
 * same for every file and tells no uploader which bytes someone stored before.
 *
 * @example
 * ```ts
 * await assertRoomFor(kv, { userId, hash }, 1_000_000, settings.quota_bytes_per_user);
 * ```
 */
export async function assertRoomFor(
  kv: Deno.Kv,
  key: BlobKey,
  sizeBytes: number,
  quotaBytes: number,
): Promise<void> {
  const used = (await getUsage(kv, key.userId)).bytes;
  if (used + sizeBytes > quotaBytes) {
    throw new QuotaExceededError(key.userId, sizeBytes, used, quotaBytes);
  }
}

/**
 * Records an upload whose bytes are in the store. The upload must fit in the quota whether or
 * not the bytes are stored already ({@linkcode QuotaExceededError}; the same answer either
 * way, so a full quota is no oracle). A new blob gets its row, joins the unclaimed index and
 * counts against the quota (checked in the same atomic operation). A blob already stored
 * keeps its metadata and costs nothing more; if unclaimed, its upload time moves to `now`,
 * restarting its grace period.
 *
 * @example
 * ```ts
 * const upload = { mime: "image/png", sizeBytes };
 * const { created } = await recordUpload(kv, key, upload, quota, new Date());
 * ```
 */
export function recordUpload(
  kv: Deno.Kv,
  key: BlobKey,
  upload: { mime: string | null; sizeBytes: number },
  quotaBytes: number,
  now: Date,
): Promise<{ created: boolean; meta: BlobMetaRow }> {
  const metaKey = blobKeys.meta(key.userId, key.hash);
  const usageKey = blobKeys.usage(key.userId);
  return retrying("Recording an upload", async () => {
    const [metaEntry, usageEntry] = await kv.getMany<[BlobMetaRow, BlobUsageRow]>([
      metaKey,
      usageKey,
    ]);
    const existing = metaEntry.value;
    const usage = usageEntry.value ?? EMPTY_USAGE;
    if (usage.bytes + upload.sizeBytes > quotaBytes) {
      throw new QuotaExceededError(key.userId, upload.sizeBytes, usage.bytes, quotaBytes);
    }
    if (existing) {
      if (existing.claimedAt !== null) return { created: false, meta: existing };
      const meta: BlobMetaRow = { ...existing, uploadedAt: now.toISOString() };
      const result = await kv.atomic()
        .check(metaEntry)
        .delete(unclaimedKey(existing))
        .set(unclaimedKey(meta), true)
        .set(metaKey, meta)
        .commit();
      return result.ok ? { created: false, meta } : undefined;
    }
    const meta: BlobMetaRow = {
      userId: key.userId,
      hash: key.hash,
      mime: upload.mime,
      sizeBytes: upload.sizeBytes,
      uploadedAt: now.toISOString(),
      claimedAt: null,
      claims: 0,
    };
    const result = await kv.atomic()
      .check(metaEntry)
      .check(usageEntry)
      .set(metaKey, meta)
      .set(unclaimedKey(meta), true)
      .set(usageKey, { bytes: usage.bytes + meta.sizeBytes, count: usage.count + 1 })
      .commit();
    return result.ok ? { created: true, meta } : undefined;
  });
}

/** Hashes per atomic operation of a claim or release (two checks and three mutations each). */
const CLAIM_BATCH = 50;

/** `kv.getMany` reads at most this many keys. */
const GET_MANY_MAX = 10;

/** What one hash of a claim or release comes to: its rows' entries, read together. */
interface ClaimEntries {
  hash: string;
  meta: Deno.KvEntryMaybe<BlobMetaRow>;
  claim: Deno.KvEntryMaybe<true>;
}

async function readClaims(
  kv: Deno.Kv,
  userId: string,
  hashes: string[],
  claimant: string,
): Promise<ClaimEntries[]> {
  const keys = hashes.flatMap((hash) => [
    blobKeys.meta(userId, hash),
    blobKeys.claim(userId, hash, claimant),
  ]);
  const entries: Deno.KvEntryMaybe<unknown>[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_MAX) {
    entries.push(...await kv.getMany(keys.slice(i, i + GET_MANY_MAX)));
  }
  return hashes.map((hash, i) => ({
    hash,
    meta: entries[2 * i] as Deno.KvEntryMaybe<BlobMetaRow>,
    claim: entries[2 * i + 1] as Deno.KvEntryMaybe<true>,
  }));
}

/**
 * Runs `step` over `hashes` (deduplicated) in batches, each batch one checked atomic
 * operation retried on conflict; `step` adds a hash's mutations and says what became of it.
 */
async function inBatches<R extends string>(
  kv: Deno.Kv,
  userId: string,
  hashes: string[],
  claimant: string,
  what: string,
  step: (op: Deno.AtomicOperation, entries: ClaimEntries) => R,
): Promise<Map<R, string[]>> {
  const unique = [...new Set(hashes)];
  const out = new Map<R, string[]>();
  for (let i = 0; i < unique.length; i += CLAIM_BATCH) {
    const batch = unique.slice(i, i + CLAIM_BATCH);
    const outcome = await retrying(what, async () => {
      const op = kv.atomic();
      const results: [R, string][] = [];
      for (const entries of await readClaims(kv, userId, batch, claimant)) {
        op.check(entries.meta, entries.claim);
        results.push([step(op, entries), entries.hash]);
      }
      return (await op.commit()).ok ? results : undefined;
    });
    for (const [result, hash] of outcome) out.set(result, [...out.get(result) ?? [], hash]);
  }
  return out;
}

/**
 * Claims blobs of `userId` for `claimant` (e.g. the record `{formId}/{recordId}` that refers
 * to them): a claimed blob is never swept as an orphan. Idempotent per claimant; each
 * claimant counts once. Returns which hashes are now claimed and which are not stored.
 *
 * @example
 * ```ts
 * const { claimed, missing } = await claimBlobs(kv, userId, [hash], new Date(), "f1/r1");
 * ```
 */
export async function claimBlobs(
  kv: Deno.Kv,
  userId: string,
  hashes: string[],
  now: Date,
  claimant: string,
): Promise<{ claimed: string[]; missing: string[] }> {
  const done = await inBatches(kv, userId, hashes, claimant, "Claiming blobs", (op, e) => {
    const meta = e.meta.value;
    if (!meta) return "missing";
    if (e.claim.value) return "claimed";
    if (meta.claims === 0) op.delete(unclaimedKey(meta));
    op.set(e.claim.key, true).set(e.meta.key, {
      ...meta,
      claimedAt: meta.claimedAt ?? now.toISOString(),
      claims: meta.claims + 1,
    });
    return "claimed";
  });
  return { claimed: done.get("claimed") ?? [], missing: done.get("missing") ?? [] };
}

/**
 * Releases `claimant`'s claims of blobs of `userId` (idempotent). A blob whose last claim
 * goes is unclaimed again with its upload time set to `now`, so the orphan sweep removes it
 * once the grace period has passed (an envelope still on its way that refers to the same
 * file has that long to claim it again). Returns the hashes that became unclaimed.
 *
 * @example
 * ```ts
 * const { unclaimed } = await releaseBlobs(kv, userId, [hash], new Date(), "f1/r1");
 * ```
 */
export async function releaseBlobs(
  kv: Deno.Kv,
  userId: string,
  hashes: string[],
  now: Date,
  claimant: string,
): Promise<{ unclaimed: string[] }> {
  const done = await inBatches(kv, userId, hashes, claimant, "Releasing blobs", (op, e) => {
    const meta = e.meta.value;
    if (!meta || !e.claim.value) return "unchanged";
    op.delete(e.claim.key);
    if (meta.claims > 1) {
      op.set(e.meta.key, { ...meta, claims: meta.claims - 1 });
      return "still_claimed";
    }
    const next: BlobMetaRow = {
      ...meta,
      claims: 0,
      claimedAt: null,
      uploadedAt: now.toISOString(),
    };
    op.set(e.meta.key, next).set(unclaimedKey(next), true);
    return "unclaimed";
  });
  return { unclaimed: done.get("unclaimed") ?? [] };
}

/**
 * Deletes the metadata of `key` if it is still an orphan: unclaimed and uploaded at or before
 * `cutoffMs`. Gives back its room in the quota. Returns the deleted row, or null.
 *
 * @example
 * ```ts
 * const gone = await forgetOrphan(kv, { userId, hash }, Date.now() - graceMs);
 * ```
 */
export function forgetOrphan(
  kv: Deno.Kv,
  key: BlobKey,
  cutoffMs: number,
): Promise<BlobMetaRow | null> {
  const metaKey = blobKeys.meta(key.userId, key.hash);
  const usageKey = blobKeys.usage(key.userId);
  return retrying("Deleting an orphan", async () => {
    const [metaEntry, usageEntry] = await kv.getMany<[BlobMetaRow, BlobUsageRow]>([
      metaKey,
      usageKey,
    ]);
    const meta = metaEntry.value;
    if (!meta || meta.claimedAt !== null || Date.parse(meta.uploadedAt) > cutoffMs) return null;
    const usage = usageEntry.value ?? EMPTY_USAGE;
    const result = await kv.atomic()
      .check(metaEntry)
      .check(usageEntry)
      .delete(metaKey)
      .delete(unclaimedKey(meta))
      .set(usageKey, {
        bytes: Math.max(0, usage.bytes - meta.sizeBytes),
        count: Math.max(0, usage.count - 1),
      })
      .commit();
    return result.ok ? meta : undefined;
  });
}
