/**
 * Request bodies read from the connection on demand, by Content-Length or chunked framing
 * (RFC 9112 sections 6 and 7). Any error while reading one fails the body for good: the
 * connection answers 400 with `Connection: close` and never parses another request from it.
 *
 * The request bodies `Deno.serve` would give the handler. Delete it when `Deno.serve` replaces
 * the owned server (see edge.ts).
 *
 * @module
 */
import { type ConnReader, HeadTooLarge } from "./reader.ts";
import {
  BadRequest,
  type BodyFraming,
  FRAMING,
  MAX_HEADER_FIELDS,
  parseFieldLine,
} from "./request_head.ts";

const MAX_LINE = 4096;
const MAX_TRAILERS = 16 * 1024;

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED =
  '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
/**
 * `chunk-size [chunk-ext]` (RFC 9112 section 7.1.1): hex digits, then `;name` or
 * `;name=value` extensions, a value a token or a quoted-string; nothing else on the line.
 */
const CHUNK_LINE = new RegExp(`^([0-9A-Fa-f]{1,16})(?:;${TOKEN}(?:=(?:${TOKEN}|${QUOTED}))?)*$`);
/** The largest chunk accepted (2^53 - 1 is where numbers stop being exact). */
const MAX_CHUNK = Number.MAX_SAFE_INTEGER;

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
  #failure: unknown = null;

  /** `onData` counts the body's own bytes (not its framing: chunk lines, extensions, trailers). */
  constructor(
    private reader: ConnReader,
    framing: BodyFraming,
    private onData: (n: number) => void = () => {},
  ) {
    this.#chunked = framing.kind === "chunked";
    this.#remaining = framing.kind === "length" ? framing.length : 0;
    this.#done = framing.kind === "none";
  }

  /** Whether the whole body has been read (the connection is at the next message). */
  get done(): boolean {
    return this.#done;
  }

  /** Whether reading the body failed (malformed framing, a cut connection, a timeout). */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /** Whether the body failed on its own framing (a malformed chunk, an overlong line), not on the connection. */
  get malformed(): boolean {
    return this.#failure instanceof BadRequest || this.#failure instanceof HeadTooLarge;
  }

  /**
   * Reads the next bytes of the body into `into`; null at its end. After one error every call
   * throws it again: nothing past a framing error is ever read as body or as a request.
   */
  async readInto(into: Uint8Array): Promise<number | null> {
    if (this.#failure !== null) throw this.#failure;
    try {
      const n = await this.#readInto(into);
      if (n !== null) this.onData(n);
      return n;
    } catch (err) {
      this.#failure = err ?? new Error("Request body failed");
      throw err;
    }
  }

  async #readInto(into: Uint8Array): Promise<number | null> {
    if (this.#done) return null;
    if (this.#chunked && this.#remaining === 0) {
      const size = await this.#chunkSize();
      if (size === 0) {
        await this.#trailers();
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
    const match = CHUNK_LINE.exec(await this.reader.readLine(MAX_LINE));
    const size = match ? parseInt(match[1], 16) : NaN;
    if (!(size <= MAX_CHUNK)) throw new BadRequest(400, "Malformed chunk size");
    return size;
  }

  /**
   * The trailer section, up to its blank line: checked like header fields (and refused when it
   * names a framing field, as llhttp refuses it), then dropped.
   */
  async #trailers(): Promise<void> {
    let bytes = 0;
    for (let fields = 0;; fields++) {
      const line = await this.reader.readLine(MAX_LINE);
      if (line === "") return;
      bytes += line.length + 2;
      if (bytes > MAX_TRAILERS || fields >= MAX_HEADER_FIELDS) {
        throw new BadRequest(400, "Trailer section too large");
      }
      const [name] = parseFieldLine(line);
      if (FRAMING.has(name.toLowerCase())) throw new BadRequest(400, `${name} in a trailer`);
    }
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
