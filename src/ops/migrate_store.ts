/**
 * `sealpost migrate-store`: moves a stopped instance from Deno KV and the `fs` blob folder to
 * PostgreSQL and an S3-compatible bucket. Every aggregate is copied by its own copy function
 * (`src/store/pg/from_kv/`), which inserts with `on conflict do nothing`; blobs are copied
 * unless the bucket already holds them. So the move is idempotent and resumable: run it again
 * after an interruption and it finishes the copy; run it once more and it copies nothing. The
 * source is only read (its KV schema is brought to the current version first, as `serve`
 * would), and the data dir's lock is held throughout: a running instance makes it refuse.
 *
 * @module
 */
import { join } from "node:path";
import type { S3BlobStore } from "../blobs/s3_store.ts";
import { claimDataDir, dataPaths, readCredentials, readIfExists } from "../store/data_dir.ts";
import { KV_FILE, migrateStore as migrateKvSchema, openStore } from "../store/kv/index.ts";
import { type BlobCopyReport, copyBlobsToS3 } from "./migrate_blobs.ts";
import {
  copyAuditFromKv,
  copyEnvelopesFromKv,
  copyRelayMetaFromKv,
  copyVaultFromKv,
  copyWebhooksFromKv,
  migratePg,
  openPg,
  PG_SETTINGS,
  type Sql,
} from "../store/pg/index.ts";

/** One area's copy from KV into PostgreSQL: its row counts per aggregate, as it reports them. */
export type KvCopy = (kv: Deno.Kv, dataDir: string, sql: Sql) => Promise<Record<string, number>>;

/** A named {@link KvCopy}, run in turn by {@link moveStore}. */
export interface KvCopyStep {
  name: string;
  copy: KvCopy;
}

/** The copies of every area, in the order they run. */
export const KV_COPY_STEPS: KvCopyStep[] = [
  { name: "relayMeta", copy: copyRelayMetaFromKv },
  { name: "envelopes", copy: copyEnvelopesFromKv },
  { name: "vault", copy: copyVaultFromKv },
  { name: "webhooks", copy: copyWebhooksFromKv },
  { name: "audit", copy: copyAuditFromKv },
];

/** The move cannot start or was refused; the message says why. */
export class MoveStoreError extends Error {
  override name = "MoveStoreError";
}

/** What {@link moveStore} takes. */
export interface MoveStoreOptions {
  /** The stopped instance's data dir (its KV file and `blobs/` folder). */
  dataDir: string;
  /** The PostgreSQL database to copy into (migrated to the current version first). */
  postgresUrl: string;
  /** The bucket the blobs go to; null leaves them in the data dir (`blobs.backend = "fs"`). */
  blobStore: S3BlobStore | null;
  /** The copies to run (default {@link KV_COPY_STEPS}). */
  steps?: KvCopyStep[];
  /** Told of each step as it starts and ends (one line each). */
  log?: (line: string) => void;
}

/** What a move copied. */
export interface MoveStoreReport {
  /**
   * Each area's counts, `{step}.{aggregate}`: rows newly copied (zeros when run again), except
   * the envelopes' and the webhooks' copies, which count the rows they went through.
   */
  rows: Record<string, number>;
  /** The blob copy, or null when blobs stay on the filesystem. */
  blobs: BlobCopyReport | null;
  seconds: number;
}

/**
 * Carries the data dir's relay secret (so edit tokens and upload URLs made before the move
 * still verify) and its first user (so `serve` finds the database initialised and makes no
 * second admin token or first user) into `sealpost_settings`. Refuses a database another
 * instance initialised: the move is into an empty database, or one an earlier run filled.
 */
async function copySettings(dataDir: string, sql: Sql): Promise<Record<string, number>> {
  const secret = (await readIfExists(dataPaths(dataDir).relaySecret))?.trim();
  const credentials = await readCredentials(dataDir);
  if (!secret || !credentials) {
    throw new MoveStoreError(`"${dataDir}" is not initialised (no relay secret or credentials)`);
  }
  const wanted: Record<string, string> = {
    [PG_SETTINGS.relaySecret]: secret,
    [PG_SETTINGS.firstUser]: credentials.userId,
  };
  const found = await sql<{ name: string; value: string }[]>`
    select name, value from sealpost_settings where name in ${sql(Object.keys(wanted))}`;
  for (const row of found) {
    if (row.value !== wanted[row.name]) {
      throw new MoveStoreError(
        `The database was initialised by another instance (its ${row.name} differs from ` +
          `${dataDir}'s); move into an empty database`,
      );
    }
  }
  let copied = 0;
  for (const [name, value] of Object.entries(wanted)) {
    copied += (await sql`insert into sealpost_settings (name, value) values (${name}, ${value})
      on conflict (name) do nothing returning name`).length;
  }
  return { settings: copied };
}

/**
 * Copies the instance in `options.dataDir` into PostgreSQL (and its blobs into the bucket).
 * Throws {@link MoveStoreError} when the data dir has no store or the database belongs to
 * another instance, `DataDirError` while an instance serves the data dir.
 *
 * @example
 * ```ts
 * const report = await moveStore({ dataDir: "./data", postgresUrl, blobStore: null });
 * console.log(report.rows);
 * ```
 */
export async function moveStore(options: MoveStoreOptions): Promise<MoveStoreReport> {
  const { dataDir, log = () => {} } = options;
  const started = performance.now();
  if (!await Deno.stat(join(dataDir, KV_FILE)).then(() => true, () => false)) {
    throw new MoveStoreError(`No store in "${dataDir}" (${KV_FILE} is missing)`);
  }
  // Held to the end: no serve may write while the copy reads.
  const lock = await claimDataDir(dataDir);
  try {
    const kv = await openStore(dataDir);
    try {
      await migrateKvSchema(kv, dataDir);
      const sql = openPg(options.postgresUrl, {
        max: 4,
        applicationName: "sealpost migrate-store",
      });
      const rows: Record<string, number> = {};
      try {
        await migratePg(sql);
        const settings = {
          name: "instance",
          copy: (_: Deno.Kv, dir: string) => copySettings(dir, sql),
        };
        for (const step of [settings, ...options.steps ?? KV_COPY_STEPS]) {
          const t0 = performance.now();
          const counts = await step.copy(kv, dataDir, sql);
          for (const [name, n] of Object.entries(counts)) rows[`${step.name}.${name}`] = n;
          log(
            `${step.name}: ${
              Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(", ") || "nothing"
            } (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
          );
        }
      } finally {
        await sql.end({ timeout: 5 });
      }
      let blobs: BlobCopyReport | null = null;
      if (options.blobStore) {
        const t0 = performance.now();
        blobs = await copyBlobsToS3(kv, dataDir, options.blobStore);
        log(
          `blobs: ${blobs.copied} copied (${blobs.bytes} bytes), ${blobs.present} already in ` +
            `the bucket, ${blobs.missing.length} missing from the data dir ` +
            `(${((performance.now() - t0) / 1000).toFixed(1)} s)`,
        );
      }
      return { rows, blobs, seconds: (performance.now() - started) / 1000 };
    } finally {
      kv.close();
    }
  } finally {
    lock.release();
  }
}
