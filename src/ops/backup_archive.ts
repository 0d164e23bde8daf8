/**
 * The backup archive's tar layer, over `modern-tar` (streaming, standard ustar with PAX
 * extensions): a writer that streams each file in and checks it delivers exactly the size
 * announced in its header, and a reader that accepts regular files only (a backup never holds
 * links or devices, so a restore never creates one).
 *
 * @module
 */
import { createTarDecoder, createTarPacker } from "modern-tar";

/** A damaged or unsupported archive. */
export class ArchiveError extends Error {
  override name = "ArchiveError";
}

/** What the writer and the reader know of an entry. */
export interface ArchiveEntry {
  name: string;
  size: number;
  /** Permission bits, e.g. 0o600. */
  mode: number;
}

/**
 * Writes a tar archive to `out`, one regular file at a time.
 *
 * @example
 * ```ts
 * const file = await Deno.open("a.tar", { write: true, createNew: true });
 * const archive = new ArchiveWriter(file.writable);
 * await archive.add({ name: "a.txt", size: 3, mode: 0o600 }, ReadableStream.from([bytes]));
 * await archive.finish();
 * ```
 */
export class ArchiveWriter {
  readonly #packer = createTarPacker();
  readonly #written: Promise<void>;
  readonly #mtime = new Date();

  constructor(out: WritableStream<Uint8Array>) {
    this.#written = this.#packer.readable.pipeTo(out);
    // A failed add aborts the packer; the error surfaces from add() and finish().
    this.#written.catch(() => {});
  }

  /** Adds a file whose `entry.size` bytes come from `data` (exactly that many, or it throws). */
  async add(
    entry: ArchiveEntry,
    data: ReadableStream<Uint8Array>,
    onChunk?: (chunk: Uint8Array) => void,
  ): Promise<void> {
    let seen = 0;
    const counted = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.length;
        if (seen > entry.size) throw new ArchiveError(`"${entry.name}" grew while archived`);
        onChunk?.(chunk);
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== entry.size) throw new ArchiveError(`"${entry.name}" shrank while archived`);
      },
    });
    const sink = this.#packer.controller.add({
      name: entry.name,
      size: entry.size,
      mode: entry.mode,
      mtime: this.#mtime,
      type: "file",
    });
    try {
      await data.pipeThrough(counted).pipeTo(sink);
    } catch (err) {
      this.#packer.controller.error(err);
      throw err;
    }
  }

  /** Writes the end of the archive and waits until everything reached `out`. */
  async finish(): Promise<void> {
    this.#packer.controller.finalize();
    await this.#written;
  }
}

/**
 * Reads the entries of a tar stream in order. For each, `onEntry` gets its header and a
 * stream of its data, which it must read to the end. Anything but a regular file, or a header
 * that fails its checksum, is an {@linkcode ArchiveError}.
 *
 * @example
 * ```ts
 * const file = await Deno.open("backup.tar");
 * await readArchive(file.readable, async (entry, data) => {
 *   for await (const _ of data) {} // write it somewhere
 * });
 * ```
 */
export async function readArchive(
  input: ReadableStream<Uint8Array>,
  onEntry: (entry: ArchiveEntry, data: ReadableStream<Uint8Array>) => Promise<void>,
): Promise<void> {
  const entries = input.pipeThrough(createTarDecoder({ strict: true }))[Symbol.asyncIterator]();
  for (;;) {
    let next;
    try {
      next = await entries.next();
    } catch (err) {
      throw new ArchiveError(`The archive is damaged: ${(err as Error).message}`);
    }
    if (next.done) return;
    const { header, body } = next.value;
    try {
      if ((header.type ?? "file") !== "file") {
        throw new ArchiveError(`Entry "${header.name}" is a ${header.type}, not a regular file`);
      }
      await onEntry({ name: header.name, size: header.size, mode: header.mode ?? 0o600 }, body);
    } catch (err) {
      await body.cancel().catch(() => {});
      await entries.return?.();
      throw err;
    }
  }
}
