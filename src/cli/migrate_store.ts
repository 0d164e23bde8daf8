/**
 * `sealpost migrate-store`: a stopped KV/fs instance into the PostgreSQL database (and the S3
 * bucket) its configuration names. See docs/scale.md, "Moving an instance".
 *
 * @module
 */
import { readS3Credentials, S3BlobStore } from "../blobs/s3_store.ts";
import { ConfigError } from "../config/index.ts";
import { BlobCopyError } from "../ops/migrate_blobs.ts";
import { DataDirError } from "../store/data_dir.ts";
import { moveStore, MoveStoreError } from "../ops/migrate_store.ts";
import { describePgUrl } from "../store/pg/index.ts";
import { SchemaVersionError } from "../store/ports/limits.ts";
import { flagOptions, JSON_AND_HELP, localConfig, parseCommand, usageFailure } from "./args.ts";
import { helpText } from "./program.ts";

const USAGE = `Usage: sealpost migrate-store --config FILE [--data DIR] [--json]

Copies a stopped instance (Deno KV store and blobs of --data) into the PostgreSQL database of
the configuration (store.backend = "postgres", store.postgres_url or SEALPOST_POSTGRES_URL)
and, with blobs.backend = "s3", its blobs into the bucket of [blobs.s3]. Idempotent and
resumable: run it again after an interruption; a second run copies nothing. Refused while
"sealpost serve" runs on the data dir. Then start "sealpost serve" with the same --config.
  --config FILE  The configuration the instance will run with (the target)
  --data DIR     Data dir (default ./data, or data_dir of --config / SEALPOST_DATA_DIR)
  --json         Print {"rows":{…},"blobs":{copied,present,bytes,missing}|null,"seconds"}

Exit status: 0 copied, 1 refused or failed, 2 usage error.
`;

const OPTIONS = { ...flagOptions("string", ["config", "data"]), ...JSON_AND_HELP } as const;

/** The failures that are the operator's to fix: their message, no stack. */
const EXPECTED = [
  ConfigError,
  MoveStoreError,
  DataDirError,
  BlobCopyError,
  SchemaVersionError,
];

/**
 * Runs `sealpost migrate-store …` (`args` after the command name); resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await migrateStoreCommand(["--config", "sealpost.toml", "--data", "./data"]));
 * ```
 */
export async function migrateStoreCommand(args: string[]): Promise<number> {
  const usage = helpText(USAGE);
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals } = parsed;
  if (positionals.length > 0) {
    return usageFailure(`Unexpected arguments: ${positionals.join(" ")}`, usage);
  }
  let postgresUrl = "";
  try {
    const config = await localConfig(flags);
    if (config.store.backend !== "postgres") {
      throw new ConfigError(
        'migrate-store copies into PostgreSQL: the configuration needs store.backend = "postgres" ' +
          "and store.postgres_url (or SEALPOST_POSTGRES_URL)",
      );
    }
    postgresUrl = config.store.postgres_url;
    const s3 = config.blobs.backend === "s3"
      ? new S3BlobStore(config.blobs.s3, await readS3Credentials(config.blobs.s3))
      : null;
    const say = flags.json ? (line: string) => console.error(line) : console.log;
    say(
      `Copying ${config.data_dir} into PostgreSQL at ${describePgUrl(postgresUrl)}` +
        (s3 ? ` and its blobs into bucket ${config.blobs.s3.bucket}` : " (blobs stay in it)"),
    );
    const report = await moveStore({
      dataDir: config.data_dir,
      postgresUrl,
      blobStore: s3,
      log: say,
    });
    if (flags.json) console.log(JSON.stringify(report));
    else say(`Done in ${report.seconds.toFixed(1)} s.`);
    for (const key of report.blobs?.missing ?? []) {
      console.error(`warning: blob ${key} is known to the store but its file is missing`);
    }
    return 0;
  } catch (err) {
    if (EXPECTED.some((kind) => err instanceof kind)) {
      console.error((err as Error).message);
      return 1;
    }
    // npm:postgres connection and server errors carry a code, never the URL's password.
    const code = (err as { code?: unknown }).code;
    if (postgresUrl !== "" && typeof code === "string") {
      console.error(
        `PostgreSQL at ${describePgUrl(postgresUrl)} failed: ${(err as Error).message} (${code})`,
      );
      return 1;
    }
    throw err;
  }
}
