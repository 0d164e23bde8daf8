/**
 * Copies the relay's metadata from a Deno KV store (the layout of src/store/kv/keys.ts) into
 * PostgreSQL, for `sealpost migrate-store`: users, tokens, databases (whose fingerprints route
 * recipients), unexpired registration challenges, published forms, blob metadata, usage and
 * claims. Rate-limit buckets live in memory on Deno KV: there are none to copy.
 *
 * @module
 */
import { blobKeys } from "../../kv/keys.ts";
import type { BlobMeta, BlobUsage } from "../../ports/blob_meta.ts";
import type { ApiToken, KeyChallenge, RelayDatabase, User } from "../../ports/identity.ts";
import type { PublishedForm } from "../../ports/manifests.ts";
import type { Sql } from "../db.ts";

/** Rows per multi-row insert. */
const BATCH = 500;

type Columns = Record<string, string | number | boolean | null | Record<string, unknown>>;

/**
 * Inserts the rows `entries` map to into `table` in batches, keeping rows already there (`on
 * conflict do nothing`); answers how many were new.
 */
async function copy<T>(
  sql: Sql,
  table: string,
  entries: AsyncIterable<Deno.KvEntry<T>>,
  columns: (value: T, key: Deno.KvKey) => Columns | null,
): Promise<number> {
  let copied = 0;
  let batch: Columns[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const rows = batch;
    batch = [];
    const names = Object.keys(rows[0]);
    const inserted = await sql`
      insert into ${sql(table)} ${sql(rows as Record<string, never>[], ...names)}
      on conflict do nothing returning 1`;
    copied += inserted.length;
  };
  for await (const entry of entries) {
    const row = columns(entry.value, entry.key);
    if (row) batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return copied;
}

/**
 * Copies every relay metadata row of `kv` into the database of `sql` (migrated already),
 * idempotently: rows present are kept, so a copy cut short is simply run again. `dataDir` is
 * not read (the relay's metadata lies wholly in the KV store). Answers the rows newly copied
 * per aggregate (zeros when run again).
 *
 * @example
 * ```ts
 * const copied = await copyRelayMetaFromKv(kv, "./data", sql);
 * console.log(copied.users, copied.forms, copied.blobs);
 * ```
 */
export async function copyRelayMetaFromKv(
  kv: Deno.Kv,
  _dataDir: string,
  sql: Sql,
): Promise<Record<string, number>> {
  // Prefixes as in src/store/kv/keys.ts.
  const list = <T>(prefix: Deno.KvKey) => kv.list<T>({ prefix });
  const now = Date.now();
  return {
    users: await copy(sql, "relay_users", list<User>(["users"]), (u) => ({
      id: u.id,
      name: u.name,
      created_at: u.createdAt,
    })),
    tokens: await copy(sql, "relay_tokens", list<ApiToken>(["tokens"]), (t) => ({
      id: t.id,
      kind: t.kind,
      user_id: t.userId,
      secret_hash: t.secretHash,
      created_at: t.createdAt,
    })),
    databases: await copy(sql, "relay_databases", list<RelayDatabase>(["databases"]), (d) => ({
      user_id: d.userId,
      id: d.id,
      name: d.name,
      public_key: d.publicKey,
      fingerprint: d.fingerprint,
      created_at: d.createdAt,
    })),
    challenges: await copy(sql, "relay_challenges", list<KeyChallenge>(["challenges"]), (c) =>
      // An expired challenge (a KV expiry is lazy) is no longer anyone's to complete.
      c.expiresAt < now ? null : {
        id: c.id,
        user_id: c.userId,
        name: c.name,
        public_key: c.publicKey,
        fingerprint: c.fingerprint,
        answer_hash: c.answerHash,
        expires_at_ms: c.expiresAt,
      }),
    forms: await copy(sql, "relay_forms", list<PublishedForm>(["forms"]), (f) => ({
      form_id: f.formId,
      user_id: f.userId,
      fingerprint: f.fingerprint,
      public_key: f.publicKey,
      schema_version: f.schemaVersion,
      manifest: f.manifest,
      published_at: f.publishedAt,
      closed: f.closed ? { ...f.closed } : null,
    })),
    blobs: await copy(sql, "relay_blobs", list<BlobMeta>(blobKeys.metaAll()), (b) => ({
      user_id: b.userId,
      hash: b.hash,
      mime: b.mime,
      size_bytes: b.sizeBytes,
      uploaded_at_ms: Date.parse(b.uploadedAt),
      claimed_at_ms: b.claimedAt === null ? null : Date.parse(b.claimedAt),
      claims: b.claims,
    })),
    blob_usage: await copy(
      sql,
      "relay_blob_usage",
      list<BlobUsage>(blobKeys.usageAll()),
      (u, key) => ({ user_id: String(key[2]), bytes: u.bytes, count: u.count }),
    ),
    blob_claims: await copy(
      sql,
      "relay_blob_claims",
      list<true>(["blobs", "claims"]),
      (_, key) => ({ user_id: String(key[2]), hash: String(key[3]), claimant: String(key[4]) }),
    ),
  };
}
