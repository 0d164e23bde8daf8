/**
 * `sealpost key export-age FINGERPRINT --out FILE`: a database's private key as an age
 * identity (`AGE-SECRET-KEY-1…`), for reading encrypted files with the `age` command line tool
 * (`age -d -i FILE`). It reads the vault's key file in the data dir directly, on the machine
 * that holds it: a private key never travels over the HTTP API. The export is recorded in the
 * audit log (`key_exported`, src/cli/_local_audit.ts).
 *
 * @module
 */
import { ConfigError } from "../config/index.ts";
import { ageIdentity, ageRecipient } from "../crypto/age.ts";
import { VaultKeyError, VaultKeys } from "../vault/keys.ts";
import { flagOptions, JSON_AND_HELP, localConfig, parseCommand, usageFailure } from "./args.ts";
import { helpText } from "./program.ts";
import { recordLocally } from "./_local_audit.ts";

const USAGE = `Usage: sealpost key export-age FINGERPRINT --out FILE [--data DIR] [--json]

Writes the private key of the database whose key has FINGERPRINT (see "sealpost db list")
as an age identity, to FILE (mode 0600; it must not exist). "age -d -i FILE" then decrypts
the files senders encrypted for forms of that database (files = "encrypted"); keep the first
sizeBytes bytes of the output (the rest is padding). A passphrase-protected key file needs
SEALPOST_PASSPHRASE, or is asked for on a terminal. The audit log records the export.
  --out FILE    The identity file to write
  --data DIR    Data dir (default ./data, or data_dir of --config / SEALPOST_DATA_DIR)
  --json        Print {"out","recipient"} (the recipient: the age1… public half)

Exit status: 0 written, 1 failed, 2 usage error.
`;

const OPTIONS = { ...flagOptions("string", ["out", "data", "config"]), ...JSON_AND_HELP } as const;

/**
 * Runs `sealpost key …` with `args` (after `key`); returns the exit status.
 *
 * @example
 * ```ts
 * await keyCommand(["export-age", fingerprint, "--out", "identity.txt"]);
 * ```
 */
export async function keyCommand(args: string[]): Promise<number> {
  const usage = helpText(USAGE);
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals } = parsed;
  const [sub, fingerprint, ...rest] = positionals;
  if (sub !== "export-age" || !fingerprint || rest.length > 0 || !flags.out) {
    return usageFailure(
      flags.out ? "Expected: export-age FINGERPRINT" : "Missing --out FILE",
      usage,
    );
  }
  try {
    const config = await localConfig(flags);
    const keys = new VaultKeys(config.data_dir, Deno.env.get("SEALPOST_PASSPHRASE") ?? null);
    const pair = await keys.databaseKey(fingerprint);
    const file = await Deno.open(flags.out, { write: true, createNew: true, mode: 0o600 });
    try {
      await file.write(new TextEncoder().encode(`${ageIdentity(pair.secretKey)}\n`));
    } finally {
      file.close();
    }
    const unrecorded = await recordLocally(config, async (vault) => {
      const db = (await vault.vaultDatabases.list()).find((d) => d.fingerprint === fingerprint);
      return {
        action: "key_exported",
        ...(db ? { databaseId: db.id } : {}),
        target: { kind: "database_key", id: fingerprint },
        detail: { format: "age" },
      };
    });
    if (unrecorded) console.error(`warning: ${unrecorded}`);
    const recipient = ageRecipient(pair.publicKey);
    if (flags.json) console.log(JSON.stringify({ out: flags.out, recipient }));
    else console.log(`Wrote the age identity of ${fingerprint} to ${flags.out} (${recipient})`);
    return 0;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      console.error(`${flags.out} exists already; choose a new file`);
      return 1;
    }
    if (err instanceof ConfigError || err instanceof VaultKeyError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
}
