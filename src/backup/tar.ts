/**
 * A minimal POSIX ustar writer and reader for backup archives: regular files only, names up
 * to 255 bytes (split over the `prefix` and `name` fields), sizes past the 8 GiB of the octal
 * field in the base-256 form GNU tar and every common reader accept. Data is streamed in both
 * directions; nothing holds a whole file in memory.
 *
 * @module
 */

const BLOCK = 512;
const OCTAL_SIZE_MAX = 8 ** 11 - 1;

/** A damaged or unsupported archive. */
export class TarError extends Error {
  override name = "TarError";
}

/** The header fields this module reads and writes. */
export interface TarEntryHeader {
  name: string;
  size: number;
  /** Permission bits, e.g. 0o600. */
  mode: number;
  /** Modification time, seconds since the epoch. */
  mtime: number;
}

function writeString(block: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = new TextEncoder().encode(value);
  if (bytes.length > length) throw new TarError(`Tar field too long: "${value}"`);
  block.set(bytes, offset);
}

function writeOctal(block: Uint8Array, offset: number, length: number, value: number): void {
  writeString(block, offset, length, value.toString(8).padStart(length - 1, "0") + "\0");
}

/** Splits `name` into ustar `prefix` and `name` fields (at a slash), or throws. */
function splitName(name: string): [prefix: string, name: string] {
  const bytes = new TextEncoder().encode(name).length;
  if (bytes <= 100) return ["", name];
  for (let i = name.indexOf("/"); i >= 0; i = name.indexOf("/", i + 1)) {
    const prefix = name.slice(0, i);
    const rest = name.slice(i + 1);
    if (
      new TextEncoder().encode(prefix).length <= 155 && new TextEncoder().encode(rest).length <= 100
    ) {
      return [prefix, rest];
    }
  }
  throw new TarError(`Path too long for a tar header: "${name}"`);
}

/**
 * The 512-byte ustar header of a regular file.
 *
 * @example
 * ```ts
 * const block = tarHeader({ name: "a.txt", size: 3, mode: 0o644, mtime: 0 });
 * ```
 */
export function tarHeader(entry: TarEntryHeader): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const [prefix, name] = splitName(entry.name);
  writeString(block, 0, 100, name);
  writeOctal(block, 100, 8, entry.mode & 0o7777);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  if (entry.size <= OCTAL_SIZE_MAX) writeOctal(block, 124, 12, entry.size);
  else {
    // Base-256: the high bit of the first byte set, the size big-endian in the rest.
    block[124] = 0x80;
    let size = BigInt(entry.size);
    for (let i = 135; i > 124; i--, size >>= 8n) block[i] = Number(size & 0xffn);
  }
  writeOctal(block, 136, 12, Math.max(0, Math.floor(entry.mtime)));
  block.fill(0x20, 148, 156);
  block[156] = 0x30; // "0": a regular file
  writeString(block, 257, 6, "ustar\0");
  writeString(block, 263, 2, "00");
  writeString(block, 345, 155, prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, sum.toString(8).padStart(6, "0") + "\0 ");
  return block;
}

function readString(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end < 0 ? field : field.subarray(0, end));
}

function readNumber(block: Uint8Array, offset: number, length: number): number {
  if (block[offset] & 0x80) {
    let value = BigInt(block[offset] & 0x7f);
    for (let i = offset + 1; i < offset + length; i++) value = (value << 8n) | BigInt(block[i]);
    return Number(value);
  }
  const text = readString(block, offset, length).trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text)) throw new TarError(`Bad number "${text}" in a tar header`);
  return parseInt(text, 8);
}

/**
 * The entry of a header block; null for an end-of-archive (all-zero) block.
 *
 * @example
 * ```ts
 * parseTarHeader(tarHeader({ name: "a", size: 1, mode: 0o600, mtime: 0 }))?.name; // "a"
 * ```
 */
export function parseTarHeader(block: Uint8Array): (TarEntryHeader & { type: string }) | null {
  if (block.every((b) => b === 0)) return null;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  if (readNumber(block, 148, 8) !== sum) throw new TarError("Tar header checksum mismatch");
  const prefix = readString(block, 345, 155);
  const name = readString(block, 0, 100);
  return {
    name: prefix ? `${prefix}/${name}` : name,
    size: readNumber(block, 124, 12),
    mode: readNumber(block, 100, 8),
    mtime: readNumber(block, 136, 12),
    type: String.fromCharCode(block[156] || 0x30),
  };
}

/** Bytes of padding after `size` bytes of data. */
function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/**
 * Writes a tar archive to a stream writer, one file at a time.
 *
 * @example
 * ```ts
 * const tar = new TarWriter(file.writable.getWriter());
 * await tar.add({ name: "a.txt", size: 3, mode: 0o600, mtime: 0 }, ReadableStream.from([bytes]));
 * await tar.finish();
 * ```
 */
export class TarWriter {
  constructor(private readonly out: WritableStreamDefaultWriter<Uint8Array>) {}

  /** Adds a file whose `entry.size` bytes come from `data` (exactly that many, or it throws). */
  async add(
    entry: TarEntryHeader,
    data: ReadableStream<Uint8Array>,
    onChunk?: (chunk: Uint8Array) => void,
  ): Promise<void> {
    await this.out.write(tarHeader(entry));
    let written = 0;
    for await (const chunk of data) {
      written += chunk.length;
      if (written > entry.size) throw new TarError(`"${entry.name}" grew while being archived`);
      onChunk?.(chunk);
      await this.out.write(chunk);
    }
    if (written !== entry.size) throw new TarError(`"${entry.name}" shrank while being archived`);
    if (padding(written) > 0) await this.out.write(new Uint8Array(padding(written)));
  }

  /** Writes the end-of-archive blocks and closes the writer. */
  async finish(): Promise<void> {
    await this.out.write(new Uint8Array(2 * BLOCK));
    await this.out.close();
  }
}

/** Reads exactly `n` bytes (fewer only at the end of the input). */
async function readUpTo(file: Deno.FsFile, buffer: Uint8Array): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const n = await file.read(buffer.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return filled;
}

/**
 * Reads the entries of a tar file in order. For each, `onEntry` gets its header and a stream
 * of its data, which it must consume before returning.
 *
 * @example
 * ```ts
 * using file = await Deno.open("backup.tar");
 * await readTar(file, async (entry, data) => {
 *   for await (const _ of data) {} // write it somewhere
 * });
 * ```
 */
export async function readTar(
  file: Deno.FsFile,
  onEntry: (entry: TarEntryHeader, data: ReadableStream<Uint8Array>) => Promise<void>,
): Promise<void> {
  const header = new Uint8Array(BLOCK);
  for (;;) {
    const got = await readUpTo(file, header);
    if (got === 0) return;
    if (got < BLOCK) throw new TarError("The archive ends inside a header");
    const entry = parseTarHeader(header);
    if (!entry) return;
    if (entry.type !== "0") throw new TarError(`Unsupported tar entry type "${entry.type}"`);
    let left = entry.size;
    const data = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (left === 0) return controller.close();
        const chunk = new Uint8Array(Math.min(left, 256 * 1024));
        const n = await readUpTo(file, chunk);
        if (n < chunk.length) {
          return controller.error(new TarError(`The archive ends inside "${entry.name}"`));
        }
        left -= n;
        controller.enqueue(chunk);
      },
    });
    await onEntry(entry, data);
    if (left > 0) throw new TarError(`Entry "${entry.name}" was not read to its end`);
    const pad = padding(entry.size);
    if (pad > 0 && await readUpTo(file, new Uint8Array(pad)) < pad) {
      throw new TarError("The archive ends inside padding");
    }
  }
}
