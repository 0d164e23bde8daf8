/**
 * Every port of the Deno KV backend in one bundle: what `serve` opens once and hands to the
 * relay, the vault and the webhook engine. Another backend (PostgreSQL) provides the same
 * bundle; nothing else chooses the backend.
 *
 * @module
 */
import type { RecordEventAnnouncer } from "../ports/record_events.ts";
import type { StorePorts } from "../ports/bundle.ts";
import type { QueueDispatcher } from "./queue.ts";
import { MemoryRateLimits } from "./rate_limits.ts";
import { relayKvPorts } from "./relay_ports.ts";
import { vaultKvPorts } from "./vault_ports.ts";
import { webhookKvPorts } from "./webhook_ports.ts";

/**
 * The ports over `kv`, the store of data dir `dataDir`; scheduled webhook attempts come due on
 * `queue`, the process's one queue listener. Rate-limit buckets live in memory (one process
 * serves a KV store), each family tracking at most `options.maxTrackedAddresses` addresses.
 *
 * @example
 * ```ts
 * const queue = new QueueDispatcher(kv);
 * const store = await openKvStore(kv, "./data", queue, { maxTrackedAddresses: 100_000 });
 * await store.relay.identity.getUser(userId);
 * await store.close();
 * ```
 */
export async function openKvStore(
  kv: Deno.Kv,
  dataDir: string,
  queue: QueueDispatcher,
  announcer: RecordEventAnnouncer,
  options: { maxTrackedAddresses?: number } = {},
): Promise<StorePorts> {
  const relay = await relayKvPorts(kv, dataDir);
  // The records port announces its events to the outbox of the same store.
  return {
    relay,
    vault: vaultKvPorts(kv, announcer),
    webhooks: webhookKvPorts(kv, queue, announcer),
    rateLimits: new MemoryRateLimits({ maxTracked: options.maxTrackedAddresses }),
    close: () => relay.close(),
  };
}
