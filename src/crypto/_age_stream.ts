/**
 * Streaming reader of an age v1 file: splits the header off the front, then decrypts the
 * payload (STREAM of 64 KiB ChaCha20-Poly1305 chunks) one chunk at a time with the runtime's
 * native ChaCha20-Poly1305 (`node:crypto`, about 8x the pure-JS speed). The ciphertext is read
 * into two reusable buffers, the next read running while the current one is decrypted
 * (straight from the source with a BYOB reader when it is a byte stream, as blob files and
 * fetch bodies are), so reading allocates nothing per chunk; only the decrypted bytes, which
 * go to the consumer, are new memory. The header itself (stanzas, X25519 unwrap, MAC) is
 * checked by `age-encryption`.
 *
 * **When it can go.** `age-encryption` (0.3.1, pinned in deno.json and the latest on npm on
 * 2026-11-28) streams decryption already: `Decrypter.decrypt(stream)` checks the header before
 * it resolves, then decrypts the payload in a `TransformStream` with @noble's pure-JavaScript
 * ChaCha20-Poly1305. What it lacks is speed: a 32 MiB file took 415-569 ms through it against
 * 84-102 ms through this reader (5-6x; Deno 2.9.6 on the shared 2-core machine). Delete this
 * module when the library's payload decryption runs within reach of this one (native
 * ChaCha20-Poly1305, or a chunk cipher the caller can supply), and decrypt with
 * `Decrypter.decrypt(stream)` in age.ts, which keeps the cut to `sizeBytes`.
 *
 * @module
 */
import { createDecipheriv } from "node:crypto";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { CryptoError } from "./errors.ts";

const CHUNK = 65_536;
const SEALED_CHUNK = CHUNK + 16;
/** A header longer than this is refused (one X25519 stanza is about 200 bytes). */
const MAX_HEADER = 16_384;
/** Bytes asked of the source per read (1 MiB: measurably faster than 256 KiB reads). */
const READ_BYTES = 1024 * 1024;
/** Room kept in front of each read for the unconsumed bytes carried over (under a chunk). */
const CARRY_ROOM = SEALED_CHUNK + 1;

/** One read from a source: the buffer it filled (BYOB transfers it), its bytes, the end. */
interface ReadStep {
  buffer: ArrayBuffer;
  bytes: number;
  done: boolean;
}

/**
 * Reads a stream into caller buffers: with a BYOB reader when it is a byte stream (straight
 * from the source), else by copying its chunks in.
 */
class Source {
  #byob: ReadableStreamBYOBReader | null = null;
  #plain: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #leftover: Uint8Array | null = null;

  constructor(stream: ReadableStream<Uint8Array>) {
    try {
      this.#byob = stream.getReader({ mode: "byob" });
    } catch {
      this.#plain = stream.getReader();
    }
  }

  /** Reads some bytes (at least one, unless the stream ended) into `buffer` at `offset`. */
  async read(buffer: ArrayBuffer, offset: number, length: number): Promise<ReadStep> {
    if (this.#byob) {
      const step = await this.#byob.read(new Uint8Array(buffer, offset, length));
      if (!step.value) throw fail("The file's stream was cancelled");
      return {
        buffer: step.value.buffer as ArrayBuffer,
        bytes: step.value.byteLength,
        done: step.done,
      };
    }
    let chunk = this.#leftover;
    this.#leftover = null;
    while (!chunk?.byteLength) {
      const step = await this.#plain!.read();
      if (step.done) return { buffer, bytes: 0, done: true };
      chunk = step.value;
    }
    const take = Math.min(chunk.byteLength, length);
    new Uint8Array(buffer, offset, take).set(chunk.subarray(0, take));
    if (take < chunk.byteLength) this.#leftover = chunk.subarray(take);
    return { buffer, bytes: take, done: false };
  }

  /** Cancels the stream (its source stops). */
  async cancel(reason?: unknown): Promise<void> {
    await (this.#byob ?? this.#plain)!.cancel(reason).catch(() => {});
  }
}

/**
 * The unconsumed front of a stream, in two reusable buffers: while the bytes of one are
 * decrypted, the next read fills the other (so reading overlaps decrypting, and nothing is
 * allocated per read). Unconsumed bytes (under a chunk) are carried to the front of the next.
 */
class Window {
  #current = new ArrayBuffer(CARRY_ROOM + READ_BYTES);
  #spare: ArrayBuffer | null = new ArrayBuffer(CARRY_ROOM + READ_BYTES);
  #pending: Promise<ReadStep> | null = null;
  #start = CARRY_ROOM;
  #end = CARRY_ROOM;
  #done = false;

  constructor(private source: Source) {}

  /** Bytes held. */
  get length(): number {
    return this.#end - this.#start;
  }

  /** Reads until at least `n` (at most a sealed chunk and a byte) are held or the stream
   * ends; whether they are. Starts the next read before returning. */
  async fill(n: number): Promise<boolean> {
    while (this.length < n && !this.#done) {
      const step = await (this.#pending ?? this.#readAhead()!);
      this.#pending = null;
      // Carry what is left of the current buffer in front of the new bytes.
      const carried = this.length;
      const front = CARRY_ROOM - carried;
      new Uint8Array(step.buffer, front, carried).set(
        new Uint8Array(this.#current, this.#start, carried),
      );
      this.#spare = this.#current;
      this.#current = step.buffer;
      this.#start = front;
      this.#end = CARRY_ROOM + step.bytes;
      this.#done = step.done;
    }
    this.#readAhead();
    return this.length >= n;
  }

  /** Starts a read into the spare buffer, unless one runs or the stream ended. */
  #readAhead(): Promise<ReadStep> | null {
    if (this.#pending || this.#done || !this.#spare) return this.#pending;
    const spare = this.#spare;
    this.#spare = null;
    this.#pending = this.source.read(spare, CARRY_ROOM, READ_BYTES);
    // A failure is reported when the read is awaited; never as an unhandled rejection.
    this.#pending.catch(() => {});
    return this.#pending;
  }

  /** The first `n` held bytes (fewer at the end), valid until the next fill or consume. */
  view(n: number): Uint8Array {
    return new Uint8Array(this.#current, this.#start, Math.min(n, this.length));
  }

  /** Drops the first `n` held bytes. */
  consume(n: number): void {
    this.#start += Math.min(n, this.length);
  }

  /** Cancels the stream (its source stops). */
  cancel(reason?: unknown): Promise<void> {
    return this.source.cancel(reason);
  }
}

const fail = (message: string) => new CryptoError("decryption_failed", message);

/** Where the header ends: just past the `\n` closing its `--- <mac>` line, or -1. */
function headerEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 4 <= bytes.length; i++) {
    // "\n---"
    if (bytes[i] === 10 && bytes[i + 1] === 45 && bytes[i + 2] === 45 && bytes[i + 3] === 45) {
      const close = bytes.indexOf(10, i + 4);
      return close === -1 ? -1 : close + 1;
    }
  }
  return -1;
}

/**
 * Opens an age file: reads its header, asks `unwrap` for the file key (it checks the header
 * and its MAC), decrypts the first payload chunk, and returns the payload as a stream cut to
 * `sizeBytes` (the padding is authenticated, then dropped). A header or first chunk that does
 * not open rejects (the ciphertext is cancelled); a later chunk that does not authenticate,
 * or a truncated file, errors the stream. Chunks are decrypted on demand only (nothing ahead of
 * the consumer), and the native decipher's output is handed out as it is (no copy).
 */
export async function openAgeStream(
  ciphertext: ReadableStream<Uint8Array>,
  unwrap: (header: Uint8Array) => Promise<Uint8Array>,
  sizeBytes: number,
): Promise<ReadableStream<Uint8Array>> {
  const window = new Window(new Source(ciphertext));
  let payload: PayloadReader;
  let first: Uint8Array | null;
  try {
    const fileKey = await unwrap(await readHeader(window));
    if (!(await window.fill(16))) throw fail("The file ends before its payload nonce");
    const nonce = window.view(16).slice();
    window.consume(16);
    payload = new PayloadReader(window, hkdf(sha256, fileKey, nonce, PAYLOAD_LABEL, 32));
    first = await payload.next();
  } catch (err) {
    await window.cancel();
    throw err;
  }
  let left = sizeBytes;
  /** The part of `plain` within the real size (empty once past it). */
  const cut = (plain: Uint8Array): Uint8Array => {
    const part = plain.length <= left ? plain : plain.subarray(0, left);
    left -= part.length;
    return part;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Until a piece of the real size is out, or the end: past the real size, the
        // padding chunks are only authenticated.
        for (;;) {
          const plain = first ?? await payload.next();
          first = null;
          if (plain === null) return controller.close();
          const part = cut(plain);
          if (part.length) return controller.enqueue(part);
        }
      } catch (err) {
        controller.error(err);
      }
    },
    cancel(reason) {
      return window.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

const PAYLOAD_LABEL = new TextEncoder().encode("payload");

/** The header's bytes (a copy), through the `\n` closing its `--- <mac>` line. */
async function readHeader(window: Window): Promise<Uint8Array> {
  for (let want = 512;; want *= 2) {
    const enough = await window.fill(want);
    const end = headerEnd(window.view(want));
    if (end !== -1) {
      const header = window.view(end).slice();
      window.consume(end);
      return header;
    }
    if (!enough || want >= MAX_HEADER) throw fail("The file has no age header");
  }
}

/** Decrypts the payload chunk after chunk (STREAM: counter nonces, last-chunk flag). */
class PayloadReader {
  #counter = 0;
  #finished = false;
  readonly #nonce = new Uint8Array(12);
  readonly #nonceView = new DataView(this.#nonce.buffer);

  constructor(private window: Window, private key: Uint8Array) {}

  /** The next chunk's plaintext, or null after the last one. */
  async next(): Promise<Uint8Array | null> {
    if (this.#finished) return null;
    const window = this.window;
    // A chunk is the last one when nothing follows it (fill stops short only at the end).
    await window.fill(SEALED_CHUNK + 1);
    const last = window.length <= SEALED_CHUNK;
    const sealed = window.view(SEALED_CHUNK);
    const counter = this.#counter++;
    if (sealed.length < 17 && !(counter === 0 && sealed.length === 16)) {
      throw fail("The file is truncated");
    }
    this.#nonceView.setUint32(7, counter);
    this.#nonce[11] = last ? 1 : 0;
    this.#finished = last;
    let plain: Uint8Array;
    try {
      const decipher = createDecipheriv("chacha20-poly1305", this.key, this.#nonce, {
        authTagLength: 16,
      });
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      plain = decipher.update(sealed.subarray(0, sealed.length - 16));
      decipher.final();
    } catch {
      throw fail(`Chunk ${counter} of the file does not authenticate`);
    }
    // The sealed bytes are spent: their room takes the next read.
    window.consume(sealed.length);
    return plain;
  }
}
