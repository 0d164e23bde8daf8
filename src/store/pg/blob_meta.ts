/**
 * The blob metadata port on PostgreSQL: `relay_blobs` (one row per blob; unclaimed rows are
 * indexed by upload time for the orphan sweep), `relay_blob_usage` (kept in the same
 * transactions, so the quota is exact) and `relay_blob_claims`.
 *
 * Every process sharing the database takes row locks in one order: a user's usage row, then
 * blob rows (in hash order), then claims; so two relays uploading, claiming or sweeping at once
 * wait for each other instead of both passing a check only one fits in.
 *
 * @module
 */
import {
  type BlobKey,
  type BlobMeta,
  type BlobMetaPort,
  type BlobUsage,
  type OrphanCandidate,
  QuotaExceededError,
} from "../ports/blob_meta.ts";
import type { Sql, Tx } from "./db.ts";

/** Orphan candidates read per query while listing. */
const ORPHAN_PAGE = 500;

interface BlobColumns {
  user_id: string;
  hash: string;
  mime: string | null;
  size_bytes: number;
  uploaded_at_ms: number;
  claimed_at_ms: number | null;
  claims: number;
}

interface OrphanColumns {
  uploaded_at_ms: number;
  user_id: string;
  hash: string;
}

function blobOf(r: BlobColumns): BlobMeta {
  return {
    userId: r.user_id,
    hash: r.hash,
    mime: r.mime,
    sizeBytes: r.size_bytes,
    uploadedAt: new Date(r.uploaded_at_ms).toISOString(),
    claimedAt: r.claimed_at_ms === null ? null : new Date(r.claimed_at_ms).toISOString(),
    claims: r.claims,
  };
}

/** Locks `userId`'s usage row (made on first use) and answers it. */
async function lockUsage(tx: Tx, userId: string): Promise<BlobUsage> {
  const [usage] = await tx<BlobUsage[]>`
    insert into relay_blob_usage (user_id, bytes, count) values (${userId}, 0, 0)
    on conflict (user_id) do update set bytes = relay_blob_usage.bytes
    returning bytes, count`;
  return usage;
}

/** Locks the blob rows of `userId` among `hashes` (in hash order) and answers those stored. */
async function lockBlobs(tx: Tx, userId: string, hashes: string[]): Promise<Set<string>> {
  const rows = await tx<{ hash: string }[]>`
    select hash from relay_blobs where user_id = ${userId} and hash = any(${hashes}::text[])
    order by hash for update`;
  return new Set(rows.map((row) => row.hash));
}

/**
 * Blob metadata in PostgreSQL.
 *
 * @example
 * ```ts
 * const meta = new PgBlobMeta(sql);
 * const { bytes } = await meta.usage("3f2a9c0d1e4b5a69");
 * ```
 */
export class PgBlobMeta implements BlobMetaPort {
  constructor(private readonly sql: Sql) {}

  async get(key: BlobKey): Promise<BlobMeta | null> {
    const [row] = await this.sql<BlobColumns[]>`
      select * from relay_blobs where user_id = ${key.userId} and hash = ${key.hash}`;
    return row ? blobOf(row) : null;
  }

  async usage(userId: string): Promise<BlobUsage> {
    const [row] = await this.sql<BlobUsage[]>`
      select bytes, count from relay_blob_usage where user_id = ${userId}`;
    return row ?? { bytes: 0, count: 0 };
  }

  async totalUsage(): Promise<BlobUsage> {
    const [row] = await this.sql<BlobUsage[]>`
      select coalesce(sum(bytes), 0)::int8 as bytes, coalesce(sum(count), 0)::int8 as count
      from relay_blob_usage`;
    return row;
  }

  async recordUpload(
    key: BlobKey,
    upload: { mime: string | null; sizeBytes: number },
    quotaBytes: number,
    now: Date,
  ): Promise<{ created: boolean; meta: BlobMeta }> {
    return await this.sql.begin(async (tx) => {
      const usage = await lockUsage(tx, key.userId);
      if (usage.bytes + upload.sizeBytes > quotaBytes) {
        throw new QuotaExceededError(key.userId, upload.sizeBytes, usage.bytes, quotaBytes);
      }
      // A stored blob keeps its row; if unclaimed, its upload time moves to now.
      const [stored] = await tx<BlobColumns[]>`
        update relay_blobs
        set uploaded_at_ms = case when claims = 0 then ${now.getTime()} else uploaded_at_ms end
        where user_id = ${key.userId} and hash = ${key.hash}
        returning *`;
      if (stored) return { created: false, meta: blobOf(stored) };
      const [created] = await tx<BlobColumns[]>`
        insert into relay_blobs (user_id, hash, mime, size_bytes, uploaded_at_ms)
        values (${key.userId}, ${key.hash}, ${upload.mime}, ${upload.sizeBytes},
          ${now.getTime()})
        returning *`;
      await tx`
        update relay_blob_usage set bytes = bytes + ${upload.sizeBytes}, count = count + 1
        where user_id = ${key.userId}`;
      return { created: true, meta: blobOf(created) };
    });
  }

  async claim(
    userId: string,
    hashes: string[],
    now: Date,
    claimant: string,
  ): Promise<{ claimed: string[]; missing: string[] }> {
    const unique = [...new Set(hashes)];
    return await this.sql.begin(async (tx) => {
      const stored = await lockBlobs(tx, userId, unique);
      const claimed = unique.filter((hash) => stored.has(hash));
      // A claimant counts once: only its new claims add to a blob's count.
      await tx`
        with added as (
          insert into relay_blob_claims (user_id, hash, claimant)
          select ${userId}, hash, ${claimant} from unnest(${claimed}::text[]) as hash
          on conflict do nothing
          returning hash
        )
        update relay_blobs b
        set claims = b.claims + 1, claimed_at_ms = coalesce(b.claimed_at_ms, ${now.getTime()})
        from added where b.user_id = ${userId} and b.hash = added.hash`;
      return { claimed, missing: unique.filter((hash) => !stored.has(hash)) };
    });
  }

  async release(
    userId: string,
    hashes: string[],
    now: Date,
    claimant: string,
  ): Promise<{ unclaimed: string[] }> {
    const unique = [...new Set(hashes)];
    return await this.sql.begin(async (tx) => {
      await lockBlobs(tx, userId, unique);
      // A blob whose last claim goes is unclaimed again, its grace period starting now.
      const rows = await tx<{ hash: string; claims: number }[]>`
        with dropped as (
          delete from relay_blob_claims
          where user_id = ${userId} and claimant = ${claimant} and hash = any(${unique}::text[])
          returning hash
        )
        update relay_blobs b
        set claims = b.claims - 1,
          claimed_at_ms = case when b.claims = 1 then null else b.claimed_at_ms end,
          uploaded_at_ms = case when b.claims = 1 then ${now.getTime()} else b.uploaded_at_ms end
        from dropped where b.user_id = ${userId} and b.hash = dropped.hash
        returning b.hash, b.claims`;
      return { unclaimed: rows.filter((row) => row.claims === 0).map((row) => row.hash) };
    });
  }

  async *orphans(cutoffMs: number): AsyncIterable<OrphanCandidate> {
    let after: [number, string, string] | null = null;
    while (true) {
      const page: OrphanColumns[] = after
        ? await this.sql<OrphanColumns[]>`
          select uploaded_at_ms, user_id, hash from relay_blobs
          where claims = 0 and uploaded_at_ms <= ${cutoffMs}
            and (uploaded_at_ms, user_id, hash) > (${after[0]}, ${after[1]}, ${after[2]})
          order by uploaded_at_ms, user_id, hash limit ${ORPHAN_PAGE}`
        : await this.sql<OrphanColumns[]>`
          select uploaded_at_ms, user_id, hash from relay_blobs
          where claims = 0 and uploaded_at_ms <= ${cutoffMs}
          order by uploaded_at_ms, user_id, hash limit ${ORPHAN_PAGE}`;
      for (const row of page) {
        yield { userId: row.user_id, hash: row.hash, uploadedAtMs: row.uploaded_at_ms };
      }
      if (page.length < ORPHAN_PAGE) return;
      const last = page[page.length - 1];
      after = [last.uploaded_at_ms, last.user_id, last.hash];
    }
  }

  async forgetOrphan(candidate: OrphanCandidate, cutoffMs: number): Promise<BlobMeta | null> {
    const { userId, hash } = candidate;
    return await this.sql.begin(async (tx) => {
      await lockUsage(tx, userId);
      const [gone] = await tx<BlobColumns[]>`
        delete from relay_blobs
        where user_id = ${userId} and hash = ${hash} and claims = 0
          and uploaded_at_ms <= ${cutoffMs}
        returning *`;
      if (!gone) return null;
      await tx`
        update relay_blob_usage
        set bytes = greatest(0, bytes - ${gone.size_bytes}), count = greatest(0, count - 1)
        where user_id = ${userId}`;
      return blobOf(gone);
    });
  }
}
