/**
 * Reads a stream in large fills of a caller's buffer: with a BYOB reader when the stream is a
 * byte stream (streamed request bodies and files are), so no memory is allocated per network
 * chunk and a large upload leaves no garbage behind; else by copying each chunk in.
 *
 * @module
 */

/**
 * The size of every BYOB read. Deno 2.9 request bodies answer BYOB reads of this size at full
 * speed, but chunked bodies slow down about tenfold with views of 256 KiB and more, and a
 * view of a byte or two can stall at the very end of a body; so every view is exactly this.
 */
const VIEW_BYTES = 64 * 1024;

/** What one {@linkcode FillingReader.fill} read. */
export interface Fill {
  /** The buffer holding the bytes (a BYOB read transfers the one passed in). */
  buffer: ArrayBuffer;
  /** Bytes at the start of `buffer`. */
  bytes: number;
  /** The stream has ended. */
  done: boolean;
}

/** Fills reusable buffers from a stream. */
export class FillingReader {
  #byob: ReadableStreamBYOBReader | null = null;
  #plain: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #leftover: Uint8Array | null = null;
  #done = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    try {
      this.#byob = stream.getReader({ mode: "byob" });
    } catch {
      this.#plain = stream.getReader();
    }
  }

  /**
   * Reads into the start of `buffer` (at least 64 KiB) until less than 64 KiB of room is
   * left or the stream ends. Use the returned buffer afterwards, never the one passed in.
   */
  async fill(buffer: ArrayBuffer): Promise<Fill> {
    if (buffer.byteLength < VIEW_BYTES) throw new RangeError("The buffer is under 64 KiB");
    let bytes = 0;
    while (!this.#done && buffer.byteLength - bytes >= VIEW_BYTES) {
      if (this.#byob) {
        const step = await this.#byob.read(new Uint8Array(buffer, bytes, VIEW_BYTES));
        if (!step.value) throw new Error("The stream was cancelled");
        buffer = step.value.buffer as ArrayBuffer;
        bytes += step.value.byteLength;
        this.#done = step.done;
        continue;
      }
      let chunk = this.#leftover;
      this.#leftover = null;
      if (!chunk) {
        const step = await this.#plain!.read();
        if (step.done) {
          this.#done = true;
          break;
        }
        chunk = step.value;
      }
      const take = Math.min(chunk.byteLength, buffer.byteLength - bytes);
      new Uint8Array(buffer, bytes, take).set(chunk.subarray(0, take));
      bytes += take;
      if (take < chunk.byteLength) this.#leftover = chunk.subarray(take);
    }
    return { buffer, bytes, done: this.#done };
  }

  /** Cancels the stream (its source stops sending) and releases it. */
  async cancel(): Promise<void> {
    await (this.#byob ?? this.#plain)!.cancel().catch(() => {});
  }

  /** Releases the stream without cancelling it. */
  release(): void {
    (this.#byob ?? this.#plain)!.releaseLock();
  }
}
