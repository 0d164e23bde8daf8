/**
 * Storage trouble (a full disk, a read-only data dir, an unreachable database): recognising it
 * in errors, and the state `/healthz` reports.
 *
 * @module
 */
import { join } from "node:path";

/** Messages of the operating system and SQLite that mean "storage cannot take writes now". */
const STORAGE_FAILURE =
  /no space left on device|os error 28\b|disk quota exceeded|os error 122\b|database or disk is full|read-only file system|os error 30\b|readonly database|disk I\/O error/i;

/**
 * Error codes of npm:postgres (its connection errors) and of PostgreSQL (class 08, connection
 * exception; shutdown; too many connections) that mean "the database cannot be used now".
 */
const DATABASE_DOWN =
  /^(ECONNREFUSED|CONNECTION_CLOSED|CONNECTION_ENDED|CONNECTION_DESTROYED|CONNECT_TIMEOUT|08...|57P0[123]|53300)$/;

/**
 * The storage failure `err` stands for (a short reason), or null when it is something else:
 * a full disk, a read-only data dir, or a PostgreSQL store that cannot be reached. Causes are
 * followed, since wrappers keep the original error there.
 *
 * @example
 * ```ts
 * storageFailure(new Error("No space left on device (os error 28)")); // "disk full"
 * ```
 */
export function storageFailure(err: unknown): string | null {
  for (let e = err, depth = 0; e && depth < 5; e = (e as Error).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && DATABASE_DOWN.test(code)) return "database unavailable";
    const message = e instanceof Error ? e.message : String(e);
    const match = STORAGE_FAILURE.exec(message);
    if (match) {
      return /space|28|quota|122|full/i.test(match[0]) ? "disk full" : "storage read-only";
    }
  }
  return null;
}

/** How long a probe result is reused (a flood of health checks writes no more often). */
const PROBE_EVERY_MS = 2000;

/**
 * Storage health of one data dir (and its store): degraded after a storage failure, healthy
 * again once a probe write succeeds (and the store answers its ping).
 *
 * @example
 * ```ts
 * const health = new StorageHealth("./data");
 * health.failed("disk full");
 * await health.check(); // { ok: false, reason: "disk full" } until the probe writes again
 * ```
 */
export class StorageHealth {
  #reason: string | null = null;
  #probedAt = -Infinity;
  #probing: Promise<void> | null = null;

  /**
   * `ping`, when given, is the store's own check (a PostgreSQL round trip), run after the probe
   * write: a store that cannot be reached keeps the state degraded.
   */
  constructor(
    private dataDir: string,
    private now: () => number = Date.now,
    private ping?: () => Promise<void>,
  ) {}

  /** Records a storage failure seen while serving. */
  failed(reason: string): void {
    this.#reason = reason;
    this.#probedAt = -Infinity;
  }

  /** The current state, after a probe write when the last one is not fresh. */
  async check(): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (this.now() - this.#probedAt >= PROBE_EVERY_MS) {
      await (this.#probing ??= this.#probe().finally(() => this.#probing = null));
    }
    return this.#reason === null ? { ok: true } : { ok: false, reason: this.#reason };
  }

  async #probe(): Promise<void> {
    const path = join(this.dataDir, ".health-probe");
    try {
      await Deno.writeFile(path, new Uint8Array(4096), { mode: 0o600 });
      await Deno.remove(path);
      await this.ping?.();
      this.#reason = null;
    } catch (err) {
      this.#reason = storageFailure(err) ?? `storage unavailable: ${(err as Error).message}`;
      await Deno.remove(path).catch(() => {});
    }
    this.#probedAt = this.now();
  }
}
