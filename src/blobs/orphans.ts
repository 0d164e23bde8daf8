/**
 * The orphan sweep: blobs no record claimed within the grace period are deleted, metadata
 * first (giving back their quota), then bytes; and the timer that runs it periodically.
 *
 * @module
 */
import { blobKeys } from "../store/keys.ts";
import type { KeyedLock } from "./_lock.ts";
import { blobKeyString } from "./key.ts";
import { forgetOrphan } from "./meta.ts";
import type { BlobStore, DirectBlobStore } from "./store.ts";

/** What one sweep removed. */
export interface SweepResult {
  deleted: number;
  bytes: number;
}

/**
 * Deletes every blob unclaimed and uploaded at or before `cutoffMs`. Each blob is handled
 * under `lock` (the lock uploads of the same key take), so an upload that lands during the
 * sweep either refreshes the blob before it is judged, or stores it again after.
 *
 * @example
 * ```ts
 * const result = await sweepOrphans(kv, store, lock, Date.now() - 7 * 24 * 3600 * 1000);
 * ```
 */
export async function sweepOrphans(
  kv: Deno.Kv,
  store: Pick<BlobStore | DirectBlobStore, "remove">,
  lock: KeyedLock,
  cutoffMs: number,
): Promise<SweepResult> {
  const result: SweepResult = { deleted: 0, bytes: 0 };
  const candidates = kv.list<true>({
    prefix: blobKeys.unclaimedAll(),
    end: [...blobKeys.unclaimedAll(), cutoffMs + 1],
  });
  for await (const entry of candidates) {
    const [, , , userId, hash] = entry.key as [string, string, number, string, string];
    const key = { userId, hash };
    await lock.run(blobKeyString(key), async () => {
      const forgotten = await forgetOrphan(kv, key, cutoffMs);
      if (forgotten) {
        await store.remove(key);
        result.deleted++;
        result.bytes += forgotten.sizeBytes;
      } else {
        // The row moved on (claimed or re-uploaded) in the same atomic write that should
        // have dropped this entry; an entry left behind anyway is dropped here.
        await kv.atomic().check(entry).delete(entry.key).commit();
      }
    });
  }
  return result;
}

/**
 * Runs a task every `intervalMs`, never two at once; {@linkcode PeriodicTask.stop} waits for
 * a run in progress.
 *
 * @example
 * ```ts
 * const sweeper = new PeriodicTask(() => blobs.sweep(), 3_600_000, console.error);
 * sweeper.start();
 * await sweeper.stop();
 * ```
 */
export class PeriodicTask {
  #timer: ReturnType<typeof setInterval> | null = null;
  #running: Promise<void> | null = null;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Starts the timer (the first run is one interval from now). */
  start(): void {
    this.#timer ??= setInterval(() => {
      this.#running ??= this.task()
        .then(() => {}, this.onError)
        .finally(() => this.#running = null);
    }, this.intervalMs);
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
