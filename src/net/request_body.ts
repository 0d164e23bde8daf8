/**
 * Request bodies read from the connection on demand, by Content-Length or chunked framing.
 *
 * @module
 */
import type { ConnReader } from "./reader.ts";
import { BadRequest, type BodyFraming } from "./request_head.ts";

const MAX_LINE = 4096;
const MAX_TRAILERS = 16 * 1024;

/**
 * One request's body: `readInto()` fills buffers until the framing says the body ended. Nothing
 * is read before the handler asks, so an upload streams straight through with flat memory.
 *
 * @example
 * ```ts
 * const body = new RequestBody(reader, { kind: "length", length: 5 });
 * const n = await body.readInto(new Uint8Array(1024)); // up to 5, then null
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

  /** Reads the next bytes of the body into `into`; null at its end. */
  async readInto(into: Uint8Array): Promise<number | null> {
    if (this.#done) return null;
    if (this.#chunked && this.#remaining === 0) {
      const size = await this.#chunkSize();
      if (size === 0) {
        // Trailers (ignored) up to the blank line, at most MAX_TRAILERS bytes of them.
        let trailers = 0;
        for (let line = await this.reader.readLine(MAX_LINE); line !== "";) {
          trailers += line.length + 2;
          if (trailers > MAX_TRAILERS) throw new BadRequest(400, "Trailer section too large");
          line = await this.reader.readLine(MAX_LINE);
        }
        this.#done = true;
        return null;
      }
      this.#remaining = size;
    }
    const n = await this.reader.readInto(into.subarray(0, Math.min(into.length, this.#remaining)));
    this.#remaining -= n;
    if (this.#remaining === 0) {
      if (this.#chunked) {
        if ((await this.reader.readLine(MAX_LINE)) !== "") {
          throw new BadRequest(400, "Malformed chunk");
        }
      } else this.#done = true;
    }
    return n;
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
      const scratch = new Uint8Array(16 * 1024);
      while (!this.#done) {
        dropped += (await this.readInto(scratch)) ?? 0;
        if (dropped > maxBytes) return false;
      }
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The body as a byte stream, pulled only when read; BYOB readers get the bytes read straight
   * into their buffers. `around` wraps each read (timeouts).
   */
  stream(
    around: (read: Promise<number | null>) => Promise<number | null> = (read) => read,
  ): ReadableStream<Uint8Array> {
    return new ReadableStream({
      type: "bytes",
      autoAllocateChunkSize: 64 * 1024,
      pull: async (controller) => {
        const request = controller.byobRequest!;
        const view = request.view!;
        const n = await around(
          this.readInto(new Uint8Array(view.buffer, view.byteOffset, view.byteLength)),
        );
        if (n === null) {
          controller.close();
          request.respond(0);
        } else request.respond(n);
      },
    });
  }
}
