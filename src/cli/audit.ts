/**
 * `sealpost audit export --out FILE` and `sealpost audit verify [FILE]`: the instance's audit
 * log (src/audit) as JSON lines with a signed head, and its verification. Both read the store
 * and the vault's key files of the data dir directly, on the machine that holds them, like
 * `backup` and `key export-age`.
 *
 * @module
 */
import { ConfigError, loadConfig } from "../config/index.ts";
import { exportAudit } from "../audit/export.ts";
import { type AuditVerification, verifyAuditExport, verifyAuditStore } from "../audit/verify.ts";
import { fromBase64 } from "../crypto/encoding.ts";
import { DataDirError } from "../store/data_dir.ts";
import type { AuditPort } from "../store/ports/audit.ts";
import { SchemaVersionError } from "../store/ports/limits.ts";
import { openConfiguredStore } from "../store/open.ts";
import { PgUnavailableError } from "../store/pg/index.ts";
import { VaultKeyError, VaultKeys, vaultPaths } from "../vault/keys.ts";
import { parseCommand } from "./args.ts";
import { helpText } from "./program.ts";

const USAGE = `Usage: sealpost audit export --out FILE [--data DIR] [--config FILE] [--json]
       sealpost audit verify [FILE] [--key FILE] [--data DIR] [--config FILE] [--json]

The audit log: who did what on this instance (never content), each entry chained to the
hash of the one before, the head signed with the vault's manifest key.
  export        Writes the log as JSON lines to FILE (mode 0600; it must not exist): the
                checkpoint of the last prune if any, every kept entry, then the head signed
                now. Needs the manifest key's secret (SEALPOST_PASSPHRASE when sealed).
  verify FILE   Verifies an export with the manifest public key: of --key FILE (the
                manifest key file, or a file holding the public key in base64), else the
                data dir's
  verify        Verifies the log in the store: the chain from its checkpoint to its head
  --data DIR    Data dir (default ./data, or data_dir of --config / SEALPOST_DATA_DIR)
  --json        Print the result as JSON

Exit status: 0 written or verified, 1 a problem (the first bad entry named by its seq) or
a failure, 2 usage error.
`;

const OPTIONS = {
  out: { type: "string" },
  key: { type: "string" },
  data: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Failures that end a command with status 1 and their message. */
const EXPECTED = [
  ConfigError,
  DataDirError,
  SchemaVersionError,
  PgUnavailableError,
  VaultKeyError,
  Deno.errors.NotFound,
];

type Flags = { out?: string; key?: string; data?: string; config?: string; json?: boolean };

/**
 * Runs `sealpost audit …` with `args` (after `audit`); returns the exit status.
 *
 * @example
 * ```ts
 * await auditCommand(["verify", "audit.jsonl"]);
 * ```
 */
export async function auditCommand(args: string[]): Promise<number> {
  const usage = helpText(USAGE);
  const parsed = parseCommand(args, OPTIONS, usage);
  if (typeof parsed === "number") return parsed;
  const { values: flags, positionals: [sub, ...rest] } = parsed;
  const misuse = sub === "export"
    ? (rest.length > 0 || flags.key ? "Unexpected arguments" : !flags.out && "Missing --out FILE")
    : sub === "verify"
    ? (rest.length > 1 || flags.out ? "Unexpected arguments" : false)
    : "Expected: export or verify";
  if (misuse) {
    console.error(`${misuse}\n\n${usage}`);
    return 2;
  }
  try {
    return sub === "export" ? await exportCommand(flags) : await verifyCommand(flags, rest[0]);
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      console.error(`${flags.out} exists already; choose a new file`);
      return 1;
    }
    if (EXPECTED.some((kind) => err instanceof kind)) {
      console.error((err as Error).message);
      return 1;
    }
    throw err;
  }
}

async function configOf(flags: Flags) {
  return await loadConfig({
    file: flags.config,
    env: Deno.env.toObject(),
    flags: { data: flags.data },
  });
}

/** Runs `fn` on the audit port of the configured store, closed after. */
async function withAudit<T>(
  config: Awaited<ReturnType<typeof configOf>>,
  fn: (port: AuditPort) => Promise<T>,
): Promise<T> {
  if (config.store.backend === "kv") await Deno.stat(config.data_dir);
  const store = await openConfiguredStore(config);
  try {
    return await fn(store.ports.vault.audit);
  } finally {
    await store.close();
  }
}

async function exportCommand(flags: Flags): Promise<number> {
  const config = await configOf(flags);
  const keys = new VaultKeys(config.data_dir, Deno.env.get("SEALPOST_PASSPHRASE") ?? null);
  // Never made here: the manifest key is the vault's (made by its first run).
  await readKeyText(keys.paths.manifestKey);
  const key = await keys.manifestKey();
  const file = await Deno.open(flags.out!, { write: true, createNew: true, mode: 0o600 });
  const writer = file.writable.getWriter();
  const encoder = new TextEncoder();
  let summary;
  try {
    summary = await withAudit(
      config,
      (port) => exportAudit(port, key, (line) => writer.write(encoder.encode(line))),
    );
    await writer.close();
  } catch (err) {
    // No partial export left behind to be mistaken for a whole one.
    await writer.abort().catch(() => {});
    await Deno.remove(flags.out!).catch(() => {});
    throw err;
  }
  if (flags.json) {
    console.log(JSON.stringify({ out: flags.out, entries: summary.entries, head: summary.head }));
  } else {
    console.log(
      `Wrote ${summary.entries} audit entries to ${flags.out}, the head signed at seq ` +
        `${summary.head.seq}${
          summary.checkpoint ? ` (from the checkpoint at seq ${summary.checkpoint.seq})` : ""
        }`,
    );
  }
  return 0;
}

async function verifyCommand(flags: Flags, file: string | undefined): Promise<number> {
  const config = await configOf(flags);
  const publicKey = await publicKeyOf(flags.key ?? vaultPaths(config.data_dir).manifestKey);
  const result = file === undefined
    ? await withAudit(config, (port) => verifyAuditStore(port, publicKey))
    : verifyAuditExport(await Deno.readTextFile(file), publicKey);
  report(result, file ?? "the audit log of the store", flags.json ?? false);
  return result.ok ? 0 : 1;
}

/** The raw public key in `path`: a key file's `publicKey`, or the file's text, in base64. */
async function publicKeyOf(path: string): Promise<Uint8Array> {
  const text = (await readKeyText(path)).trim();
  let encoded = text;
  try {
    encoded = String(JSON.parse(text).publicKey);
  } catch {
    // Not JSON: the base64 itself.
  }
  let key: Uint8Array | null = null;
  try {
    key = fromBase64(encoded);
  } catch {
    key = null;
  }
  if (key?.length !== 32) {
    throw new VaultKeyError(`${path} holds no Ed25519 public key (32 bytes, base64)`);
  }
  return key;
}

async function readKeyText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    throw new VaultKeyError(`No manifest key at ${path} (the vault makes it on its first start)`);
  }
}

function report(result: AuditVerification, what: string, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(result.ok ? result : { ok: false, ...result.problem }));
  } else if (result.ok) {
    const from = result.from.seq === 0 ? "" : ` after the checkpoint at seq ${result.from.seq}`;
    console.log(
      `Verified ${what}: ${result.entries} entries${from}, ` +
        `the chain ends at seq ${result.head.seq}`,
    );
  } else {
    console.error(`Audit verification of ${what} failed: ${result.problem.message}`);
  }
}
