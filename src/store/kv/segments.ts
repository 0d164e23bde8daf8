/**
 * Segment files: large values (queued ciphertexts) appended in arrival order to files beside the
 * KV store, so KV holds only small index rows pointing into them. A B-tree keyed by random ids
 * then never scatters large values, and no value pays a 4 KiB overflow page.
 *
 * Durability follows the group commit: values are appended to memory as their writes are
 * recorded, and {@link SegmentLog.flush} (the committer's `beforeCommit`) writes and fsyncs
 * them before the KV commit that refers to them. A crash between the two leaves unreferenced
 * bytes, never a reference to bytes that are not on disk.
 *
 * Values are appended in the order their rows' sequence numbers are handed out, so the rows
 * that refer to a segment form a prefix of each queue. A segment is deleted once it is sealed (a
 * newer one takes the appends), none of its values is in flight, and it lies before the oldest
 * segment any row still refers to (the caller finds that; see src/relay/queue.ts). While a
 * backup runs ({@link holdSegments}) nothing is deleted.
 *
 * Owned infrastructure. Delete this log when Deno KV keeps a value of up to a sealed envelope's
 * 1 MiB itself (today at most 64 KiB, each value over about 1 KB of a row paying SQLite overflow
 * pages) in write order, out of its B-tree; bench/kv_flat.ts measures the two side by side.
 *
 * @module
 */
import { type FileHandle, open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** The folder of the segment files inside the data dir. */
export const SEGMENTS_DIR = "segments";

/** Where a value lies: segment id, byte offset and length. */
export interface SegmentRef {
  s: number;
  o: number;
  n: number;
}

/** Options of {@link SegmentLog.open}. */
export interface SegmentOptions {
  /** A segment is sealed once it holds this many bytes (default 64 MiB). */
  segmentBytes?: number;
}

interface Append {
  id: number;
  offset: number;
  bytes: Uint8Array;
}

const NAME = /^(\d{12})\.seg$/;
const fileName = (id: number) => `${String(id).padStart(12, "0")}.seg`;
/** Name of the file (in the segments folder) that holds deletions while a backup runs. */
export const HOLD_FILE = ".hold";
/** A hold older than this was left by a backup that died; it is ignored. */
const HOLD_MAX_MS = 6 * 60 * 60 * 1000;

/**
 * Keeps every segment in `dir` until the returned function is called: a backup takes its
 * store snapshot after this, so the segments its rows refer to are all still there.
 *
 * @example
 * ```ts
 * const release = await holdSegments(join(dataDir, "segments"));
 * try { snapshot(); archiveSegments(); } finally { await release(); }
 * ```
 */
export async function holdSegments(dir: string): Promise<() => Promise<void>> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, HOLD_FILE);
  await Deno.writeTextFile(path, String(Date.now()), { mode: 0o600 });
  return () => Deno.remove(path).catch(() => {});
}

async function held(dir: string): Promise<boolean> {
  try {
    const stat = await Deno.stat(join(dir, HOLD_FILE));
    return Date.now() - (stat.mtime?.getTime() ?? 0) < HOLD_MAX_MS;
  } catch {
    return false;
  }
}

/**
 * An append-only log of values split over segment files in one folder.
 *
 * @example
 * ```ts
 * const log = await SegmentLog.open(join(dataDir, "segments"));
 * const ref = log.append(bytes);
 * await log.flush(); // durable: now commit the row that holds `ref`
 * log.settle(ref);
 * ```
 */
export class SegmentLog {
  #dir: string;
  #segmentBytes: number;
  #current: number;
  #size = 0;
  #pending: Append[] = [];
  #appended = 0;
  #durable = 0;
  #flushing: Promise<void> | null = null;
  #writers = new Map<number, Deno.FsFile>();
  #readers = new Map<number, Promise<FileHandle>>();
  #inFlight = new Map<number, number>();
  #newFiles = false;

  private constructor(dir: string, current: number, segmentBytes: number) {
    this.#dir = dir;
    this.#current = current;
    this.#segmentBytes = segmentBytes;
  }

  /** Opens the log in `dir` (created 0700); appends go to a new segment after the newest. */
  static async open(dir: string, options: SegmentOptions = {}): Promise<SegmentLog> {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const ids = await segmentIds(dir);
    return new SegmentLog(dir, (ids.at(-1) ?? 0) + 1, options.segmentBytes ?? 64 * 1024 * 1024);
  }

  /**
   * Reserves the place of `bytes` and keeps them for the next {@link flush}. The reference is
   * in flight (its segment is not deleted) until {@link settle}.
   */
  append(bytes: Uint8Array): SegmentRef {
    if (this.#size > 0 && this.#size + bytes.length > this.#segmentBytes) {
      this.#current++;
      this.#size = 0;
    }
    const ref = { s: this.#current, o: this.#size, n: bytes.length };
    this.#size += bytes.length;
    this.#pending.push({ id: ref.s, offset: ref.o, bytes });
    this.#appended++;
    this.#inFlight.set(ref.s, (this.#inFlight.get(ref.s) ?? 0) + 1);
    return ref;
  }

  /** Ends the flight of `ref`: its row is committed, or will never be. */
  settle(ref: SegmentRef): void {
    const left = (this.#inFlight.get(ref.s) ?? 1) - 1;
    if (left === 0) this.#inFlight.delete(ref.s);
    else this.#inFlight.set(ref.s, left);
  }

  /** Writes and fsyncs every value appended before this call. */
  async flush(): Promise<void> {
    const target = this.#appended;
    while (this.#durable < target) {
      this.#flushing ??= this.#flushOnce().finally(() => this.#flushing = null);
      await this.#flushing;
    }
  }

  async #flushOnce(): Promise<void> {
    const batch = this.#pending;
    const upTo = this.#appended;
    this.#pending = [];
    const byFile = Map.groupBy(batch, (a) => a.id);
    for (const [id, appends] of byFile) {
      const handle = await this.#writer(id);
      // Appends of one segment are contiguous and in order: one write each run.
      let start = 0;
      while (start < appends.length) {
        let end = start + 1;
        while (
          end < appends.length &&
          appends[end].offset === appends[end - 1].offset + appends[end - 1].bytes.length
        ) end++;
        writeAt(handle, joined(appends, start, end), appends[start].offset);
        start = end;
      }
      await handle.syncData();
    }
    if (this.#newFiles) {
      this.#newFiles = false;
      const dir = await open(this.#dir, "r");
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    }
    // Sealed segments are complete: their write handles go.
    for (const [id, handle] of this.#writers) {
      if (id < this.#current) {
        this.#writers.delete(id);
        handle.close();
      }
    }
    this.#durable = upTo;
  }

  async #writer(id: number): Promise<Deno.FsFile> {
    let handle = this.#writers.get(id);
    if (!handle) {
      // Positioned writes (no append mode); ids only grow, so the file is new.
      handle = await Deno.open(join(this.#dir, fileName(id)), {
        read: true,
        write: true,
        create: true,
        mode: 0o600,
      });
      this.#writers.set(id, handle);
      this.#newFiles = true;
    }
    return handle;
  }

  /** The bytes at `ref` (flushed before their row was committed). */
  async read(ref: SegmentRef): Promise<Uint8Array> {
    const [bytes] = await this.readMany([ref]);
    if (bytes instanceof Error) throw bytes;
    return bytes;
  }

  /**
   * The bytes at each of `refs`, or the error reading them: one read per run of refs that lie
   * back to back in one segment (a queue page, written in arrival order, is one run as a
   * rule), instead of one per value.
   */
  async readMany(refs: readonly SegmentRef[]): Promise<(Uint8Array | Error)[]> {
    const out: (Uint8Array | Error)[] = new Array(refs.length);
    const runs: { start: number; end: number }[] = [];
    for (let i = 0; i < refs.length; i++) {
      const run = runs.at(-1);
      const last = run && refs[run.end - 1];
      if (last && last.s === refs[i].s && last.o + last.n === refs[i].o) run.end = i + 1;
      else runs.push({ start: i, end: i + 1 });
    }
    await Promise.all(runs.map(async ({ start, end }) => {
      const first = refs[start];
      const length = refs[end - 1].o + refs[end - 1].n - first.o;
      try {
        const bytes = new Uint8Array(length);
        const { bytesRead } = await (await this.#reader(first.s)).read(bytes, 0, length, first.o);
        if (bytesRead !== length) {
          throw new Error(
            `Segment ${first.s} ends before ${first.o}+${length}: the store is damaged`,
          );
        }
        if (end - start === 1) out[start] = bytes;
        // A copy each: a view would keep (and, posted or transferred, carry) the whole run.
        else {
          for (let i = start; i < end; i++) {
            out[i] = bytes.slice(refs[i].o - first.o, refs[i].o - first.o + refs[i].n);
          }
        }
      } catch (err) {
        for (let i = start; i < end; i++) out[i] = err as Error;
      }
    }));
    return out;
  }

  #reader(id: number): Promise<FileHandle> {
    let reader = this.#readers.get(id);
    if (!reader) {
      reader = open(join(this.#dir, fileName(id)), "r");
      reader.catch(() => this.#readers.delete(id));
      this.#readers.set(id, reader);
    }
    return reader;
  }

  /** The id of the segment that takes appends now (rows never refer past it). */
  get current(): number {
    return this.#current;
  }

  /**
   * Deletes the sealed segments no row refers to: those before both the oldest segment holding
   * a value in flight (taken first) and `liveFrom()` (the oldest segment a committed row refers
   * to, read after that); returns how many went. Nothing goes while a backup holds them.
   */
  async sweep(liveFrom: () => Promise<number>): Promise<number> {
    const floor = Math.min(this.#current, ...this.#inFlight.keys());
    const limit = Math.min(floor, await liveFrom());
    const doomed = (await segmentIds(this.#dir)).filter((id) => id < limit);
    if (doomed.length === 0 || await held(this.#dir)) return 0;
    for (const id of doomed) {
      await this.#closeReader(id);
      await rm(join(this.#dir, fileName(id)), { force: true });
    }
    return doomed.length;
  }

  /** Bytes of segment `id` (0 when it is gone). */
  async size(id: number): Promise<number> {
    return (await Deno.stat(join(this.#dir, fileName(id))).catch(() => ({ size: 0 }))).size;
  }

  async #closeReader(id: number): Promise<void> {
    const reader = this.#readers.get(id);
    this.#readers.delete(id);
    await reader?.then((h) => h.close()).catch(() => {});
  }

  /** Flushes what is pending and closes every file. */
  async close(): Promise<void> {
    await this.flush();
    for (const handle of this.#writers.values()) handle.close();
    this.#writers.clear();
    for (const id of [...this.#readers.keys()]) await this.#closeReader(id);
  }
}

async function segmentIds(dir: string): Promise<number[]> {
  const ids: number[] = [];
  for (const name of await readdir(dir)) {
    const match = NAME.exec(name);
    if (match) ids.push(Number(match[1]));
  }
  return ids.sort((a, b) => a - b);
}

/** The bytes of `appends[start..end)` (contiguous in their file) as one buffer. */
function joined(appends: Append[], start: number, end: number): Uint8Array {
  if (end - start === 1) return appends[start].bytes;
  let size = 0;
  for (let i = start; i < end; i++) size += appends[i].bytes.length;
  const out = new Uint8Array(size);
  for (let i = start, at = 0; i < end; at += appends[i].bytes.length, i++) {
    out.set(appends[i].bytes, at);
  }
  return out;
}

/**
 * Writes all of `bytes` at `offset` of `file`, synchronously: a write to the page cache takes
 * microseconds, less than a round trip through the event loop would add to every group
 * commit (the fsync that follows is the part worth awaiting).
 */
function writeAt(file: Deno.FsFile, bytes: Uint8Array, offset: number): void {
  file.seekSync(offset, Deno.SeekMode.Start);
  for (let done = 0; done < bytes.length;) done += file.writeSync(bytes.subarray(done));
}
