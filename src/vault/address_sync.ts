/**
 * Published forms follow the instance's address. A manifest carries the relay address it was
 * signed with (`relayUrl`), and the form page posts there; when the instance moves (a new
 * `base_url`, or a relay that reports a new one), every form whose published manifest carries
 * another address is signed again, at the version the relay serves, with the current address,
 * and republished. Archived versions stay as they are. One log line says what moved.
 *
 * The vault checks when it starts and then every minute: a check asks the relay for its
 * address (in-process: nothing to ask) and reads the published manifests only when that
 * address is not the one the last complete check found.
 *
 * @module
 */
import { PeriodicTask } from "../blobs/index.ts";
import { canonicalAddress, sameAddress } from "../config/index.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { FormHead } from "../store/ports/forms.ts";
import { buildManifest } from "./forms.ts";
import type { VaultKeys } from "./keys.ts";
import type { RelayLink } from "./relay_link.ts";

/** What one check republished. */
export interface Republished {
  /** The address the forms carry now. */
  address: string;
  /** How many forms were republished. */
  count: number;
  /** The addresses they carried before (canonical spelling, each once). */
  carried: string[];
}

/**
 * The one log line of a check that republished forms.
 *
 * @example
 * ```ts
 * republishedLine({ address: "https://forms.example.org", count: 3, carried: ["http://127.0.0.1:8080"] });
 * // "Republished 3 forms for https://forms.example.org (they carried http://127.0.0.1:8080)"
 * ```
 */
export function republishedLine(done: Republished): string {
  const forms = done.count === 1 ? "1 form" : `${done.count} forms`;
  const before = done.carried.length > 1
    ? `${done.carried.slice(0, -1).join(", ")} and ${done.carried.at(-1)}`
    : done.carried[0];
  return `Republished ${forms} for ${done.address} (${
    done.count === 1 ? "it" : "they"
  } carried ${before})`;
}

/** What a check reads and writes. */
export interface AddressSyncDeps {
  store: Pick<VaultPorts, "forms" | "vaultDatabases">;
  keys: Pick<VaultKeys, "manifestKey">;
  link: RelayLink;
  log?: (message: string) => void;
}

/**
 * Keeps the published manifests on the current address.
 *
 * @example
 * ```ts
 * const sync = new AddressSync({ store, keys, link, log: console.error });
 * await sync.run(); // at start
 * sync.start(60_000);
 * ```
 */
export class AddressSync {
  /** The address every published form carried at the end of the last complete check. */
  #settled: string | null = null;
  #task: PeriodicTask | null = null;
  #lastError = "";

  constructor(private deps: AddressSyncDeps) {}

  /**
   * Republishes every published form whose manifest on the relay carries an address other
   * than the relay's current one; null when none did. A form that fails is left for the next
   * check, and the first failure is thrown once the others are done.
   */
  async check(): Promise<Republished | null> {
    const { store, link } = this.deps;
    const address = await link.refreshRelayUrl();
    if (this.#settled !== null && sameAddress(this.#settled, address)) return null;
    const carried = new Set<string>();
    let count = 0;
    let failure: unknown = null;
    for (const row of await store.forms.list()) {
      // A deleted form is not published; a closed one's manifest is not served (over HTTP it
      // is skipped here, and followed when it is reopened: see followOne).
      if (row.publishedVersion === null || row.deletedAt) continue;
      try {
        const served = await link.published(row.formId);
        if (!served || sameAddress(served.relayUrl, address)) continue;
        await this.#republish(row, served.schemaVersion, address);
        carried.add(canonicalAddress(served.relayUrl));
        count++;
      } catch (err) {
        failure ??= err;
      }
    }
    const done = count > 0 ? { address, count, carried: [...carried] } : null;
    if (done) this.deps.log?.(republishedLine(done));
    if (failure) throw failure;
    this.#settled = address;
    return done;
  }

  /** {@link check}, with a failure logged (the same failure again is not repeated). */
  async run(): Promise<void> {
    try {
      await this.check();
      this.#lastError = "";
    } catch (err) {
      const message = (err as Error).message;
      if (message !== this.#lastError) {
        this.deps.log?.(`Published forms may carry an old address (tried again later): ${message}`);
      }
      this.#lastError = message;
    }
  }

  /**
   * Brings one form to the relay's current address (after a reopen: a relay serves a closed
   * form's manifest to no one, so a check made while it was closed may have passed it by).
   * True when it was republished.
   */
  async followOne(formId: string): Promise<boolean> {
    const { store, link } = this.deps;
    const row = await store.forms.get(formId);
    if (!row || row.publishedVersion === null || row.deletedAt) return false;
    const served = await link.published(formId);
    if (!served) return false;
    const address = await link.refreshRelayUrl();
    if (sameAddress(served.relayUrl, address)) return false;
    await this.#republish(row, served.schemaVersion, address);
    return true;
  }

  /** Runs {@link run} every `intervalMs` until {@link stop}. */
  start(intervalMs: number): void {
    this.#task ??= new PeriodicTask(() => this.run(), intervalMs, () => {});
    this.#task.start();
  }

  /** Stops the checks, waiting for one in progress. */
  async stop(): Promise<void> {
    await this.#task?.stop();
  }

  /** Signs version `schemaVersion` of the form again with `address` and publishes it. */
  async #republish(row: FormHead, schemaVersion: number, address: string): Promise<void> {
    const { store, keys, link } = this.deps;
    const version = await store.forms.version(row.formId, schemaVersion);
    const db = await store.vaultDatabases.get(row.databaseId);
    if (!version || !db) {
      throw new Error(`Form "${row.formId}" lacks its version ${schemaVersion} or its database`);
    }
    const { secretKey } = await keys.manifestKey();
    const ownerName = await link.ownerName(row.userId);
    await link.publish(row.userId, buildManifest(version, db, address, secretKey, ownerName));
  }
}
