/**
 * Streaming reader of an age v1 file: splits the header off the front, then decrypts the
 * payload (STREAM of 64 KiB ChaCha20-Poly1305 chunks) one chunk at a time with the runtime's
 * native ChaCha20-Poly1305 (`node:crypto`, about 8x the pure-JS speed), holding at most two
 * chunks. The header itself (stanzas, X25519 unwrap, MAC) is checked by `age-encryption`.
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

/** Bytes read from a stream and not yet consumed. */
class ByteQueue {
  #parts: Uint8Array[] = [];
  length = 0;
  done = false;

  constructor(private reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads until at least `n` bytes are queued or the stream ends; whether they are. */
  async fill(n: number): Promise<boolean> {
    while (this.length < n && !this.done) {
      const next = await this.reader.read();
      if (next.done) this.done = true;
      else if (next.value.length) {
        this.#parts.push(next.value);
        this.length += next.value.length;
      }
    }
    return this.length >= n;
  }

  /** The first `n` queued bytes (fewer at the end), without consuming them. */
  peek(n: number): Uint8Array {
    const out = new Uint8Array(Math.min(n, this.length));
    let at = 0;
    for (const part of this.#parts) {
      if (at >= out.length) break;
      const take = part.subarray(0, out.length - at);
      out.set(take, at);
      at += take.length;
    }
    return out;
  }

  /** Takes the first `n` queued bytes (fewer at the end). */
  take(n: number): Uint8Array {
    const head = this.#parts[0];
    if (head && head.length >= n) {
      // The common case: no copy.
      this.#parts[0] = head.subarray(n);
      if (head.length === n) this.#parts.shift();
      this.length -= n;
      return head.subarray(0, n);
    }
    const out = this.peek(n);
    let left = out.length;
    while (left > 0) {
      const head = this.#parts[0];
      if (head.length <= left) {
        this.#parts.shift();
        left -= head.length;
      } else {
        this.#parts[0] = head.subarray(left);
        left = 0;
      }
    }
    this.length -= out.length;
    return out;
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
 * or a truncated file, errors the stream. One nonce buffer serves every chunk, and the
 * native decipher's output is passed on as it is (no copy).
 */
export async function openAgeStream(
  ciphertext: ReadableStream<Uint8Array>,
  unwrap: (header: Uint8Array) => Promise<Uint8Array>,
  sizeBytes: number,
): Promise<ReadableStream<Uint8Array>> {
  const reader = ciphertext.getReader();
  let payload: PayloadReader;
  let first: Uint8Array | null;
  try {
    const queue = new ByteQueue(reader);
    const fileKey = await unwrap(await readHeader(queue));
    if (!(await queue.fill(16))) throw fail("The file ends before its payload nonce");
    const key = hkdf(sha256, fileKey, queue.take(16), new TextEncoder().encode("payload"), 32);
    payload = new PayloadReader(queue, key);
    first = await payload.next();
  } catch (err) {
    await reader.cancel().catch(() => {});
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
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** The header's bytes, through the `\n` closing its `--- <mac>` line. */
async function readHeader(queue: ByteQueue): Promise<Uint8Array> {
  for (let want = 512;; want *= 2) {
    const enough = await queue.fill(want);
    const end = headerEnd(queue.peek(want));
    if (end !== -1) return queue.take(end);
    if (!enough || want >= MAX_HEADER) throw fail("The file has no age header");
  }
}

/** Decrypts the payload chunk after chunk (STREAM: counter nonces, last-chunk flag). */
class PayloadReader {
  #counter = 0;
  #finished = false;
  readonly #nonce = new Uint8Array(12);
  readonly #nonceView = new DataView(this.#nonce.buffer);

  constructor(private queue: ByteQueue, private key: Uint8Array) {}

  /** The next chunk's plaintext, or null after the last one. */
  async next(): Promise<Uint8Array | null> {
    if (this.#finished) return null;
    const queue = this.queue;
    // A chunk is the last one when nothing follows it.
    await queue.fill(SEALED_CHUNK + 1);
    const last = queue.length <= SEALED_CHUNK;
    const sealed = queue.take(SEALED_CHUNK);
    const counter = this.#counter++;
    if (sealed.length < 17 && !(counter === 0 && sealed.length === 16)) {
      throw fail("The file is truncated");
    }
    this.#nonceView.setUint32(7, counter);
    this.#nonce[11] = last ? 1 : 0;
    this.#finished = last;
    try {
      const decipher = createDecipheriv("chacha20-poly1305", this.key, this.#nonce, {
        authTagLength: 16,
      });
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      const plain = decipher.update(sealed.subarray(0, sealed.length - 16));
      decipher.final();
      return plain;
    } catch {
      throw fail(`Chunk ${counter} of the file does not authenticate`);
    }
  }
}
