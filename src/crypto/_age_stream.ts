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
 * and its MAC), and returns the decrypted payload as a stream. A chunk that does not
 * authenticate, or a truncated file, errors the stream.
 */
export async function openAgeStream(
  ciphertext: ReadableStream<Uint8Array>,
  unwrap: (header: Uint8Array) => Promise<Uint8Array>,
): Promise<ReadableStream<Uint8Array>> {
  const reader = ciphertext.getReader();
  const queue = new ByteQueue(reader);
  let end = -1;
  for (let want = 512; end === -1; want *= 2) {
    const enough = await queue.fill(want);
    end = headerEnd(queue.peek(want));
    if (end === -1 && (!enough || want >= MAX_HEADER)) {
      await reader.cancel();
      throw fail("The file has no age header");
    }
  }
  const fileKey = await unwrap(queue.take(end));
  if (!(await queue.fill(16))) throw fail("The file ends before its payload nonce");
  const key = hkdf(sha256, fileKey, queue.take(16), new TextEncoder().encode("payload"), 32);
  let counter = 0;
  let finished = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return controller.close();
      // A chunk is the last one when nothing follows it.
      await queue.fill(SEALED_CHUNK + 1);
      const last = queue.length <= SEALED_CHUNK;
      const sealed = queue.take(SEALED_CHUNK);
      if (sealed.length < 17 && !(counter === 0 && sealed.length === 16)) {
        return controller.error(fail("The file is truncated"));
      }
      const nonce = new Uint8Array(12);
      new DataView(nonce.buffer).setUint32(7, counter++);
      nonce[11] = last ? 1 : 0;
      try {
        const decipher = createDecipheriv("chacha20-poly1305", key, nonce, { authTagLength: 16 });
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        const plain = decipher.update(sealed.subarray(0, sealed.length - 16));
        decipher.final();
        if (plain.length) controller.enqueue(new Uint8Array(plain));
      } catch {
        return controller.error(fail(`Chunk ${counter - 1} of the file does not authenticate`));
      }
      if (last) {
        finished = true;
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
