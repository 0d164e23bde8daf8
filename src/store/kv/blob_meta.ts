/**
 * The blob metadata port on Deno KV: `blobs/meta/{userId}/{hash}` (one row per blob),
 * `blobs/usage/{userId}` (kept in the same atomic operations, so the quota is exact),
 * `blobs/claims/{userId}/{hash}/{claimant}` and the unclaimed index
 * `blobs/unclaimed/{uploadedAtMs}/{userId}/{hash}` the orphan sweep reads.
 *
 * Every write is an optimistic atomic operation checked against what it read, retried on a
 * conflicting write.
 *
 * @module
 */
import { blobKeys } from "./keys.ts";
import { KvWrite } from "./write.ts";
import {
  type BlobKey,
  type BlobMeta,
  type BlobMetaPort,
  type BlobUsage,
  type OrphanCandidate,
  QuotaExceededError,
} from "../ports/blob_meta.ts";

/** Optimistic KV operations retry on a conflicting write; this many times at most. */
const MAX_ATTEMPTS = 64;

/** Hashes per atomic operation of a claim or release (two checks and three mutations each). */
const CLAIM_BATCH = 50;

/** `kv.getMany` reads at most this many keys. */
const GET_MANY_MAX = 10;

const EMPTY_USAGE: BlobUsage = { bytes: 0, count: 0 };

async function retrying<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = await attempt();
    if (result !== undefined) return result;
  }
  throw new Error(`${what}: still conflicting after ${MAX_ATTEMPTS} attempts`);
}

function unclaimedKey(meta: BlobMeta) {
  return blobKeys.unclaimed(Date.parse(meta.uploadedAt), meta.userId, meta.hash);
}

/** What one hash of a claim or release comes to: its rows' entries, read together. */
interface ClaimEntries {
  hash: string;
  meta: Deno.KvEntryMaybe<BlobMeta>;
  claim: Deno.KvEntryMaybe<true>;
}

/**
 * Blob metadata in Deno KV.
 *
 * @example
 * ```ts
 * const meta = new KvBlobMeta(kv);
 * const { bytes } = await meta.usage("3f2a9c0d1e4b5a69");
 * ```
 */
export class KvBlobMeta implements BlobMetaPort {
  constructor(private readonly kv: Deno.Kv) {}

  async get(key: BlobKey): Promise<BlobMeta | null> {
    return (await this.kv.get<BlobMeta>(blobKeys.meta(key.userId, key.hash))).value;
  }

  async usage(userId: string): Promise<BlobUsage> {
    return (await this.kv.get<BlobUsage>(blobKeys.usage(userId))).value ?? EMPTY_USAGE;
  }

  async totalUsage(): Promise<BlobUsage> {
    const total = { ...EMPTY_USAGE };
    for await (const entry of this.kv.list<BlobUsage>({ prefix: blobKeys.usageAll() })) {
      total.bytes += entry.value.bytes;
      total.count += entry.value.count;
    }
    return total;
  }

  recordUpload(
    key: BlobKey,
    upload: { mime: string | null; sizeBytes: number },
    quotaBytes: number,
    now: Date,
  ): Promise<{ created: boolean; meta: BlobMeta }> {
    const metaKey = blobKeys.meta(key.userId, key.hash);
    const usageKey = blobKeys.usage(key.userId);
    return retrying("Recording an upload", async () => {
      const [metaEntry, usageEntry] = await this.kv.getMany<[BlobMeta, BlobUsage]>([
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
        const meta: BlobMeta = { ...existing, uploadedAt: now.toISOString() };
        const ok = await new KvWrite()
          .check(metaEntry)
          .delete(unclaimedKey(existing))
          .set(unclaimedKey(meta), true)
          .set(metaKey, meta)
          .commit(this.kv);
        return ok ? { created: false, meta } : undefined;
      }
      const meta: BlobMeta = {
        userId: key.userId,
        hash: key.hash,
        mime: upload.mime,
        sizeBytes: upload.sizeBytes,
        uploadedAt: now.toISOString(),
        claimedAt: null,
        claims: 0,
      };
      const ok = await new KvWrite()
        .check(metaEntry, usageEntry)
        .set(metaKey, meta)
        .set(unclaimedKey(meta), true)
        .set(usageKey, { bytes: usage.bytes + meta.sizeBytes, count: usage.count + 1 })
        .commit(this.kv);
      return ok ? { created: true, meta } : undefined;
    });
  }

  async claim(
    userId: string,
    hashes: string[],
    now: Date,
    claimant: string,
  ): Promise<{ claimed: string[]; missing: string[] }> {
    const done = await this.#inBatches(userId, hashes, claimant, "Claiming blobs", (w, e) => {
      const meta = e.meta.value;
      if (!meta) return "missing";
      if (e.claim.value) return "claimed";
      if (meta.claims === 0) w.delete(unclaimedKey(meta));
      w.set(e.claim.key, true).set(e.meta.key, {
        ...meta,
        claimedAt: meta.claimedAt ?? now.toISOString(),
        claims: meta.claims + 1,
      });
      return "claimed";
    });
    return { claimed: done.get("claimed") ?? [], missing: done.get("missing") ?? [] };
  }

  async release(
    userId: string,
    hashes: string[],
    now: Date,
    claimant: string,
  ): Promise<{ unclaimed: string[] }> {
    const done = await this.#inBatches(userId, hashes, claimant, "Releasing blobs", (w, e) => {
      const meta = e.meta.value;
      if (!meta || !e.claim.value) return "unchanged";
      w.delete(e.claim.key);
      if (meta.claims > 1) {
        w.set(e.meta.key, { ...meta, claims: meta.claims - 1 });
        return "still_claimed";
      }
      const next: BlobMeta = {
        ...meta,
        claims: 0,
        claimedAt: null,
        uploadedAt: now.toISOString(),
      };
      w.set(e.meta.key, next).set(unclaimedKey(next), true);
      return "unclaimed";
    });
    return { unclaimed: done.get("unclaimed") ?? [] };
  }

  async *orphans(cutoffMs: number): AsyncIterable<OrphanCandidate> {
    const candidates = this.kv.list<true>({
      prefix: blobKeys.unclaimedAll(),
      end: [...blobKeys.unclaimedAll(), cutoffMs + 1],
    });
    for await (const entry of candidates) {
      const [, , uploadedAtMs, userId, hash] = entry.key as [
        string,
        string,
        number,
        string,
        string,
      ];
      yield { userId, hash, uploadedAtMs };
    }
  }

  forgetOrphan(candidate: OrphanCandidate, cutoffMs: number): Promise<BlobMeta | null> {
    const { userId, hash } = candidate;
    const metaKey = blobKeys.meta(userId, hash);
    const usageKey = blobKeys.usage(userId);
    const indexKey = blobKeys.unclaimed(candidate.uploadedAtMs, userId, hash);
    return retrying("Deleting an orphan", async () => {
      const [metaEntry, usageEntry] = await this.kv.getMany<[BlobMeta, BlobUsage]>([
        metaKey,
        usageKey,
      ]);
      const meta = metaEntry.value;
      if (!meta || meta.claimedAt !== null || Date.parse(meta.uploadedAt) > cutoffMs) {
        // The row moved on (claimed or re-uploaded) in the same atomic write that should have
        // dropped this index entry; an entry left behind anyway is dropped here (the row's own
        // entry, if unclaimed, is later than the cutoff, so never this one).
        const ok = await new KvWrite().check(metaEntry).delete(indexKey).commit(this.kv);
        return ok ? null : undefined;
      }
      const usage = usageEntry.value ?? EMPTY_USAGE;
      const w = new KvWrite().check(metaEntry, usageEntry)
        .delete(metaKey)
        .delete(unclaimedKey(meta));
      // A stale entry listed instead of the row's own goes too.
      if (Date.parse(meta.uploadedAt) !== candidate.uploadedAtMs) w.delete(indexKey);
      w.set(usageKey, {
        bytes: Math.max(0, usage.bytes - meta.sizeBytes),
        count: Math.max(0, usage.count - 1),
      });
      return await w.commit(this.kv) ? meta : undefined;
    });
  }

  async #readClaims(userId: string, hashes: string[], claimant: string): Promise<ClaimEntries[]> {
    const keys = hashes.flatMap((hash) => [
      blobKeys.meta(userId, hash),
      blobKeys.claim(userId, hash, claimant),
    ]);
    const entries: Deno.KvEntryMaybe<unknown>[] = [];
    for (let i = 0; i < keys.length; i += GET_MANY_MAX) {
      entries.push(...await this.kv.getMany(keys.slice(i, i + GET_MANY_MAX)));
    }
    return hashes.map((hash, i) => ({
      hash,
      meta: entries[2 * i] as Deno.KvEntryMaybe<BlobMeta>,
      claim: entries[2 * i + 1] as Deno.KvEntryMaybe<true>,
    }));
  }

  /**
   * Runs `step` over `hashes` (deduplicated) in batches, each batch one checked atomic
   * operation retried on conflict; `step` adds a hash's mutations and says what became of it.
   */
  async #inBatches<R extends string>(
    userId: string,
    hashes: string[],
    claimant: string,
    what: string,
    step: (w: KvWrite, entries: ClaimEntries) => R,
  ): Promise<Map<R, string[]>> {
    const unique = [...new Set(hashes)];
    const out = new Map<R, string[]>();
    for (let i = 0; i < unique.length; i += CLAIM_BATCH) {
      const batch = unique.slice(i, i + CLAIM_BATCH);
      const outcome = await retrying(what, async () => {
        const w = new KvWrite();
        const results: [R, string][] = [];
        for (const entries of await this.#readClaims(userId, batch, claimant)) {
          w.check(entries.meta, entries.claim);
          results.push([step(w, entries), entries.hash]);
        }
        return await w.commit(this.kv) ? results : undefined;
      });
      for (const [result, hash] of outcome) out.set(result, [...out.get(result) ?? [], hash]);
    }
    return out;
  }
}
