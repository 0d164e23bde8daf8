/**
 * Reads a stream in large fills of a caller's buffer: with a BYOB reader when the stream is a
 * byte stream (request bodies and files are), so no memory is allocated per network chunk and
 * a large upload leaves no garbage behind; else by copying each chunk in.
 *
 * @module
 */

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
   * Reads up to `limit` bytes into the start of `buffer`, fewer only at the end of the stream
   * (0 there). BYOB reads transfer the buffer: use the one returned.
   */
  async fill(buffer: ArrayBuffer, limit: number): Promise<{ buffer: ArrayBuffer; bytes: number }> {
    let bytes = 0;
    while (bytes < limit && !this.#done) {
      if (this.#byob) {
        const step = await this.#byob.read(new Uint8Array(buffer, bytes, limit - bytes));
        if (!step.value) throw new Error("The stream was cancelled");
        buffer = step.value.buffer as ArrayBuffer;
        bytes += step.value.byteLength;
        this.#done = step.done;
      } else {
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
        const take = Math.min(chunk.byteLength, limit - bytes);
        new Uint8Array(buffer, bytes, take).set(chunk.subarray(0, take));
        bytes += take;
        if (take < chunk.byteLength) this.#leftover = chunk.subarray(take);
      }
    }
    return { buffer, bytes };
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
