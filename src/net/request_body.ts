/**
 * Request bodies read from the connection on demand, by Content-Length or chunked framing.
 *
 * @module
 */
import type { ConnReader } from "./reader.ts";
import { BadRequest, type BodyFraming } from "./request_head.ts";

const MAX_LINE = 4096;

/**
 * One request's body: `next()` yields chunks until the framing says the body ended. Nothing
 * is read before the handler asks, so an upload streams straight through with flat memory.
 *
 * @example
 * ```ts
 * const body = new RequestBody(reader, { kind: "length", length: 5 });
 * const chunk = await body.next(); // up to 5 bytes, then null
 * ```
 */
export class RequestBody {
  #remaining: number;
  #chunked: boolean;
  #done: boolean;

  constructor(private reader: ConnReader, framing: BodyFraming) {
    this.#chunked = framing.kind === "chunked";
    this.#remaining = framing.kind === "length" ? framing.length : 0;
    this.#done = framing.kind === "none";
  }

  /** Whether the whole body has been read (the connection is at the next message). */
  get done(): boolean {
    return this.#done;
  }

  /** The next chunk of the body, or null at its end. */
  async next(): Promise<Uint8Array | null> {
    if (this.#done) return null;
    if (this.#chunked && this.#remaining === 0) {
      const size = await this.#chunkSize();
      if (size === 0) {
        // Trailers (ignored) up to the blank line.
        while ((await this.reader.readLine(MAX_LINE)) !== "");
        this.#done = true;
        return null;
      }
      this.#remaining = size;
    }
    const chunk = await this.reader.readSome(this.#remaining);
    this.#remaining -= chunk.byteLength;
    if (this.#remaining === 0) {
      if (this.#chunked) {
        if ((await this.reader.readLine(MAX_LINE)) !== "") {
          throw new BadRequest(400, "Malformed chunk");
        }
      } else this.#done = true;
    }
    return chunk;
  }

  async #chunkSize(): Promise<number> {
    const line = await this.reader.readLine(MAX_LINE);
    const match = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(line);
    if (!match) throw new BadRequest(400, "Malformed chunk size");
    return parseInt(match[1], 16);
  }

  /** Reads and drops what is left, up to `maxBytes`; false when more was left (or it failed). */
  async discard(maxBytes: number): Promise<boolean> {
    let dropped = 0;
    try {
      while (!this.#done) {
        const chunk = await this.next();
        dropped += chunk?.byteLength ?? 0;
        if (dropped > maxBytes) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  /** The body as a stream, pulled only when read. */
  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        const chunk = await this.next();
        if (chunk) controller.enqueue(chunk);
        else controller.close();
      },
    }, { highWaterMark: 0 });
  }
}
