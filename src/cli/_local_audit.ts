/**
 * The audit log of the store, as the commands run on the machine that holds the data dir
 * (`audit`, `backup`, `key export-age`) reach it: they open the store themselves, like the
 * server does, read its audit port, and record their own actions through it. Such an action
 * has no person behind it (`personId` null): it was done by whoever runs commands on that
 * machine, which the entry says (`detail.via = "cli"`).
 *
 * @module
 */
import { AuditLog } from "../audit/log.ts";
import type { Config } from "../config/index.ts";
import type { AuditEvent, AuditPort } from "../store/ports/audit.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import { openConfiguredStore } from "../store/open.ts";
import { VaultKeys } from "../vault/keys.ts";

/**
 * Runs `fn` on the vault's ports of the configured store, closed after (a Deno KV data dir
 * must exist: none is made here).
 */
async function withVaultStore<T>(
  config: Config,
  fn: (vault: VaultPorts) => Promise<T>,
): Promise<T> {
  if (config.store.backend === "kv") await Deno.stat(config.data_dir);
  const store = await openConfiguredStore(config);
  try {
    return await fn(store.ports.vault);
  } finally {
    await store.close();
  }
}

/**
 * Runs `fn` on the audit port of the configured store, closed after.
 *
 * @example
 * ```ts
 * const head = await withAuditPort(config, (port) => port.head());
 * ```
 */
export function withAuditPort<T>(config: Config, fn: (port: AuditPort) => Promise<T>): Promise<T> {
  return withVaultStore(config, (vault) => fn(vault.audit));
}

/**
 * Records the command's action, `event` built on the vault's ports (with no person, done from
 * the command line). Answers null when recorded, else why not (the action went ahead: the
 * caller warns).
 *
 * @example
 * ```ts
 * const failed = await recordLocally(config, () => ({ action: "backup_created" }));
 * if (failed) console.error(`warning: ${failed}`);
 * ```
 */
export async function recordLocally(
  config: Config,
  event: (
    vault: VaultPorts,
  ) => Promise<Omit<AuditEvent, "personId">> | Omit<AuditEvent, "personId">,
): Promise<string | null> {
  let failure: string | null = null;
  const keys = new VaultKeys(config.data_dir, Deno.env.get("SEALPOST_PASSPHRASE") ?? null);
  try {
    await withVaultStore(config, async (vault) => {
      const log = new AuditLog(vault.audit, {
        manifestKey: () => keys.manifestKey(),
        log: (message) => failure = message,
      });
      const built = await event(vault);
      await log.record({ ...built, personId: null, detail: { ...built.detail, via: "cli" } });
    });
  } catch (err) {
    failure = (err as Error).message;
  }
  return failure && `The audit log did not record it: ${failure}`;
}
