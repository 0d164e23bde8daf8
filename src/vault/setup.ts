/**
 * Opens the vault of a process: its keys, its link to the relay (in-process for role `all`,
 * the owner API for role `vault`) and its ingest loop.
 *
 * @module
 */
import { type Config, publicBaseUrl } from "../config/index.ts";
import { readIfExists, writeSecretFile } from "../store/data_dir.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { FormDirectory } from "../relay/manifests.ts";
import { VaultKeys, vaultPaths } from "./keys.ts";
import { type LocalBlobs, LocalRelayLink, type LocalRelayPorts } from "./local_relay_link.ts";
import { HttpRelayLink } from "./http_relay_link.ts";
import { Vault, type VaultOptions } from "./service.ts";

/** What the process gives the vault. */
export interface VaultSetup {
  config: Config;
  /** The vault's store ports (src/store/kv/store.ts). */
  ports: VaultPorts;
  /** Role `all`: the relay's stores, form directory, intake events and uploaded files. */
  local?: {
    ports: LocalRelayPorts;
    forms: FormDirectory;
    events: EventTarget;
    relayUrl: string;
    blobs: LocalBlobs | null;
  };
  /** `SEALPOST_PASSPHRASE` and `SEALPOST_RELAY_TOKEN`, usually `Deno.env.toObject()`. */
  env: Record<string, string>;
  log?: (message: string) => void;
  /** Told of each envelope ingest settled (metrics). */
  observe?: VaultOptions["observe"];
  /** Told of deleted records (metrics). */
  onRecordsDeleted?: VaultOptions["onRecordsDeleted"];
}

/**
 * The relay token of a `vault`-role process: `SEALPOST_RELAY_TOKEN` (saved 0600 in the data
 * dir for the next starts), else the saved one.
 */
async function relayToken(dataDir: string, env: Record<string, string>): Promise<string> {
  const path = vaultPaths(dataDir).relayLink;
  const given = env.SEALPOST_RELAY_TOKEN;
  if (given) {
    await Deno.mkdir(vaultPaths(dataDir).dir, { recursive: true, mode: 0o700 });
    await writeSecretFile(path, JSON.stringify({ token: given }) + "\n");
    return given;
  }
  const saved = await readIfExists(path);
  if (saved === null) {
    throw new Error(
      "A vault-role process needs the relay owner token: set SEALPOST_RELAY_TOKEN once",
    );
  }
  return (JSON.parse(saved) as { token: string }).token;
}

/**
 * Builds the vault for `config.server.role` (`all` needs `local`; `vault` needs
 * `vault.relay_url`). Ingest is not started.
 */
export async function openVault(setup: VaultSetup): Promise<Vault> {
  const { config, env } = setup;
  const keys = new VaultKeys(config.data_dir, env.SEALPOST_PASSPHRASE || null);
  let link;
  if (setup.local) {
    const { ports, forms, relayUrl, events, blobs } = setup.local;
    link = new LocalRelayLink(ports, forms, relayUrl, events, blobs);
  } else {
    if (!config.vault.relay_url) {
      throw new Error("Role vault needs the relay's URL: --relay URL or vault.relay_url");
    }
    link = new HttpRelayLink(config.vault.relay_url, await relayToken(config.data_dir, env));
  }
  return new Vault(setup.ports, keys, link, {
    batchSize: config.vault.ingest_batch_size,
    pollIntervalMs: config.vault.poll_interval_seconds * 1000,
    log: setup.log,
    observe: setup.observe,
    onRecordsDeleted: setup.onRecordsDeleted,
    publicUrl: publicBaseUrl(config),
    auditRetentionDays: config.audit.retention_days,
  });
}
