/**
 * `sealpost backup` and `sealpost restore`: a running (or stopped) instance's data dir into
 * one archive, and back into a new data dir. See README, "Backup and restore". A backup is
 * recorded in the audit log (`backup_created`, src/cli/_local_audit.ts).
 *
 * @module
 */
import { BackupError, createBackup } from "../ops/backup.ts";
import { restoreBackup, RestoreError } from "../ops/restore.ts";
import { ConfigError } from "../config/index.ts";
import { describePgUrl } from "../store/pg/index.ts";
import { flagOptions, JSON_AND_HELP, localConfig, parseCommand, usageFailure } from "./args.ts";
import { helpText, programCommand } from "./program.ts";
import { recordLocally } from "./_local_audit.ts";

const BACKUP_USAGE = `Usage: sealpost backup --out FILE [--data DIR] [--config FILE] [--json]

Writes one archive (tar, mode 0600) of a data dir: a consistent snapshot of the store, the
blobs it knows, and the secrets (relay secret, credentials, vault keys). Safe while
"sealpost serve" runs on the same data dir: the snapshot holds every commit made before
it started. Run it on the machine that holds the data dir. The audit log records it. With store.backend = "postgres"
it writes nothing and says what to back up instead (pg_dump, the bucket, the secrets).
  --out FILE    The archive to write (must not exist)
  --data DIR    Data dir (default ./data, or data_dir of --config / SEALPOST_DATA_DIR)
  --json        Print {"out","bytes","files","blobs","blobBytes","missingBlobs"}

Exit status: 0 written, 1 failed, 2 usage error.
`;

const RESTORE_USAGE = `Usage: sealpost restore FILE --data DIR [--json]

Unpacks a backup archive into DIR, which must be empty or not exist, checking every file
against the archive's manifest and every blob against its hash. Then start it with
"sealpost serve --data DIR". Nothing is left in DIR when the archive is damaged.
  --data DIR    The new data dir
  --json        Print {"dataDir","files","blobs","missingBlobs","createdAt"}

Exit status: 0 restored, 1 refused or failed, 2 usage error.
`;

const OPTIONS = { ...flagOptions("string", ["out", "data", "config"]), ...JSON_AND_HELP } as const;

async function backup(args: string[]): Promise<number> {
  const usage = helpText(BACKUP_USAGE);
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals } = parsed;
  if (!flags.out || positionals.length > 0) {
    return usageFailure(flags.out ? "Unexpected arguments" : "Missing --out FILE", usage);
  }
  const config = await localConfig(flags);
  if (config.store.backend === "postgres") {
    console.error(postgresBackupAdvice(config.store.postgres_url));
    return 1;
  }
  const summary = await createBackup(config.data_dir, flags.out);
  const unrecorded = await recordLocally(config, () => ({
    action: "backup_created",
    detail: { files: summary.files, blobs: summary.blobs },
  }));
  if (unrecorded) console.error(`warning: ${unrecorded}`);
  if (flags.json) console.log(JSON.stringify(summary));
  else {
    console.log(
      `Backup of ${config.data_dir} written to ${summary.out} (${summary.bytes} bytes): ` +
        `store snapshot, ${summary.files - 1} other files, ${summary.blobs} blobs`,
    );
  }
  for (const key of summary.missingBlobs) {
    console.error(`warning: blob ${key} was removed while the backup ran and is not in it`);
  }
  return 0;
}

/**
 * What `backup` answers with `store.backend = "postgres"`: the data lives in the database (and
 * the object store), which have their own consistent backup tools; the data dir keeps only this
 * process's secrets.
 */
function postgresBackupAdvice(url: string): string {
  return `The store is the PostgreSQL database ${describePgUrl(url)} (store.backend = ` +
    `"postgres"), not this data dir: "backup" archives Deno KV data dirs only.\n` +
    "Back up instead:\n" +
    "  - the database, with PostgreSQL's tools: pg_dump --format=custom (one consistent " +
    "snapshot, while the service runs), or a base backup with WAL archiving for " +
    "point-in-time recovery;\n" +
    "  - the uploaded files: the S3 bucket with the object store's own tools (blobs.backend " +
    '= "s3"), or each relay\'s data dir blobs/ (blobs.backend = "fs");\n' +
    "  - each process's secrets as files: the vault's keys (<data_dir>/vault/keys), " +
    "credentials.json, and store.relay_secret_file when set (otherwise the relay secret " +
    "is in the database).\n" +
    "See docs/scale.md.";
}

async function restore(args: string[]): Promise<number> {
  const usage = helpText(RESTORE_USAGE);
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals } = parsed;
  if (positionals.length !== 1 || !flags.data || flags.out) {
    return usageFailure(!flags.data ? "Missing --data DIR" : "Give one archive", usage);
  }
  const summary = await restoreBackup(positionals[0], flags.data);
  if (flags.json) console.log(JSON.stringify(summary));
  else {
    console.log(
      `Restored the backup of ${summary.createdAt} into ${summary.dataDir}: ` +
        `${summary.files} files, ${summary.blobs} blobs. Start it with ` +
        `"${programCommand()} serve --data ${summary.dataDir}".`,
    );
  }
  return 0;
}

/**
 * Runs `sealpost backup …` or `sealpost restore …` (`args[0]` names which).
 *
 * @example
 * ```ts
 * await backupCommand(["backup", "--out", "backup.tar"]);
 * ```
 */
export async function backupCommand(args: string[]): Promise<number> {
  try {
    return args[0] === "restore" ? await restore(args.slice(1)) : await backup(args.slice(1));
  } catch (err) {
    if (err instanceof BackupError || err instanceof RestoreError || err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}
