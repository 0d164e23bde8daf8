/**
 * The vault's metric counts on Deno KV: keys under the quarantine and webhook delivery
 * prefixes, counted on the store file with a bounded SQL count (src/store/kv/key_count.ts).
 *
 * @module
 */
import { join } from "node:path";
import { vaultKeys, webhookKeys } from "../keys.ts";
import { KV_FILE } from "../kv.ts";
import type { VaultCounts } from "../open.ts";
import { KeyCounter } from "./key_count.ts";

/**
 * Counts of the store of `dataDir`, read through a read-only connection to its file.
 *
 * @example
 * ```ts
 * const counts = new KvVaultCounts("./data");
 * await counts.quarantined(10_000);
 * counts.close();
 * ```
 */
export class KvVaultCounts implements VaultCounts {
  readonly #counter: KeyCounter;

  constructor(dataDir: string) {
    this.#counter = new KeyCounter(join(dataDir, KV_FILE));
  }

  quarantined(cap: number): Promise<number> {
    return Promise.resolve(this.#counter.count(vaultKeys.quarantineAll(), cap));
  }

  deliveries(cap: number): Promise<{ pending: number; failed: number }> {
    return Promise.resolve({
      pending: this.#counter.count(webhookKeys.pendingAll(), cap),
      failed: this.#counter.count(webhookKeys.failedAll(), cap),
    });
  }

  /** Closes the read-only connection (a later count opens it again). */
  close(): void {
    this.#counter.close();
  }
}
