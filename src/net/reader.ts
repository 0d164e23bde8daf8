/**
 * A buffered reader over one connection: request heads, chunk-size lines and body bytes.
 *
 * A part of the owned HTTP/1.1 server, read by connection.ts and request_body.ts only (the
 * webhook sender uses `node:http`). Delete it when `Deno.serve` replaces the owned server (see
 * edge.ts).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { BadRequest } from "./request_head.ts";

/** The request head grew past the limit before its blank line (431). */
export class HeadTooLarge extends Error {
  override name = "HeadTooLarge";
}

/** The peer closed the connection in the middle of a message. */
export class UnexpectedEof extends Error {
  override name = "UnexpectedEof";
}

const CR = 13;
const LF = 10;

/** What the reader reads from: a `Deno.Conn`, or anything with its `read`. */
export interface ByteSource {
  read(into: Uint8Array): Promise<number | null>;
}

/**
 * Reads from a connection through one growable buffer; bytes past a message stay buffered
 * for the next one (pipelining, keep-alive).
 *
 * @example
 * ```ts
 * const reader = new ConnReader(conn, (n) => meter.add(n));
 * const head = await reader.readHead(64 * 1024); // "GET / HTTP/1.1\r\nHost: a"
 * ```
 */
export class ConnReader {
  #buf = new Uint8Array(8 * 1024);
  /** `#buf` as a `Buffer`, for ISO-8859-1 decoding (`TextDecoder("latin1")` is windows-1252). */
  #text = Buffer.from(this.#buf.buffer);
  #start = 0;
  #end = 0;
  /** Bytes of the head being read that were searched for its end already. */
  #scanned = 0;

  constructor(private conn: ByteSource, private onBytes: (n: number) => void = () => {}) {}

  /** Bytes read but not yet consumed. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /** The read in flight: one at a time, whoever asks (see {@link waitForData}). */
  #filling: Promise<boolean> | null = null;

  /**
   * Reads more into the buffer (growing it up to `limit` bytes held); false at end of stream.
   * A read already in flight is awaited instead of starting another.
   */
  #fill(limit: number): Promise<boolean> {
    return this.#filling ??= this.#read(limit).finally(() => this.#filling = null);
  }

  async #read(limit: number): Promise<boolean> {
    if (this.#start > 0 && this.#end === this.#buf.length) {
      this.#buf.copyWithin(0, this.#start, this.#end);
      this.#end -= this.#start;
      this.#start = 0;
    }
    if (this.#end === this.#buf.length) {
      const grown = new Uint8Array(Math.min(this.#buf.length * 2, limit + 4));
      grown.set(this.#buf.subarray(this.#start, this.#end));
      this.#end -= this.#start;
      this.#start = 0;
      this.#buf = grown;
      this.#text = Buffer.from(grown.buffer);
    }
    const n = await this.conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    this.onBytes(n);
    return true;
  }

  /**
   * Waits until at least one byte is buffered; false when the peer closed first. May run
   * while a request is handled (watching for the peer to go away): the next read shares it.
   */
  async waitForData(): Promise<boolean> {
    return this.buffered > 0 || await this.#fill(this.#buf.length);
  }

  /**
   * The next message head if it is wholly buffered (its text without the blank line, consumed
   * from the buffer), else null; throws {@link HeadTooLarge} past `maxBytes`, and
   * {@link BadRequest} at once for a CR not followed by LF or a LF not preceded by CR (a bare
   * line ending is refused, never waited on until the header timeout).
   */
  takeHead(maxBytes: number): string | null {
    // Blank lines before a request are ignored (RFC 9112 section 2.2).
    if (this.#scanned === 0) {
      while (
        this.buffered > 0 && (this.#buf[this.#start] === CR || this.#buf[this.#start] === LF)
      ) this.#start++;
    }
    // Bytes already searched are not searched again (a dribbled head costs linear time).
    const end = this.#lineEnd(this.#scanned, true);
    if (end >= 0) {
      const head = this.#take(end - 3, end + 1);
      this.#scanned = 0;
      return head;
    }
    this.#scanned = this.buffered;
    if (this.buffered > maxBytes) throw new HeadTooLarge("Request head too large");
    return null;
  }

  /**
   * The next message head (see {@link takeHead}), reading as needed. Null when the peer
   * closed cleanly before sending anything.
   */
  async readHead(maxBytes: number): Promise<string | null> {
    for (;;) {
      const head = this.takeHead(maxBytes);
      if (head !== null) return head;
      if (!await this.#fill(maxBytes)) {
        if (this.buffered === 0) return null;
        throw new UnexpectedEof("Connection closed inside the message head");
      }
    }
  }

  /**
   * One CRLF-terminated line (without the CRLF), at most `maxBytes` long; a bare CR or LF is
   * refused at once ({@link BadRequest}).
   */
  async readLine(maxBytes: number): Promise<string> {
    let scanned = 0;
    for (;;) {
      const end = this.#lineEnd(scanned, false);
      if (end > maxBytes + 1) throw new HeadTooLarge("Line too long");
      if (end >= 0) return this.#take(end - 1, end + 1);
      scanned = this.buffered;
      if (this.buffered > maxBytes) throw new HeadTooLarge("Line too long");
      if (!await this.#fill(maxBytes)) throw new UnexpectedEof("Connection closed inside a line");
    }
  }

  /** Up to `max` bytes (a fresh copy); throws {@link UnexpectedEof} at end of stream. */
  async readSome(max: number): Promise<Uint8Array> {
    const chunk = new Uint8Array(Math.min(max, this.buffered || 64 * 1024));
    const n = await this.readInto(chunk);
    return n === chunk.length ? chunk : chunk.slice(0, n);
  }

  /**
   * Reads up to `into.length` bytes into `into` (buffered bytes first, else straight from the
   * connection: no copy, no allocation); throws {@link UnexpectedEof} at end of stream.
   */
  async readInto(into: Uint8Array): Promise<number> {
    if (this.buffered > 0) {
      const take = Math.min(into.length, this.buffered);
      into.set(this.#buf.subarray(this.#start, this.#start + take));
      this.#start += take;
      return take;
    }
    if (this.#filling) {
      // A watch's read is in flight (see waitForData): its bytes come first.
      if (!await this.#filling) throw new UnexpectedEof("Connection closed inside the body");
      return await this.readInto(into);
    }
    const n = await this.conn.read(into);
    if (n === null) throw new UnexpectedEof("Connection closed inside the body");
    this.onBytes(n);
    return n;
  }

  /**
   * The offset (from the buffer's start) of the LF that ends the first line, or with `blank`
   * the first empty line, searching from `from`; -1 when not buffered yet. Every line ending
   * must be CRLF.
   */
  #lineEnd(from: number, blank: boolean): number {
    const buf = this.#buf;
    const start = this.#start;
    for (let i = start + from; i < this.#end; i++) {
      const byte = buf[i];
      if (byte === LF) {
        if (i === start || buf[i - 1] !== CR) throw new BadRequest(400, "Bare LF line ending");
        if (!blank) return i - start;
        if (i - start >= 3 && buf[i - 2] === LF) return i - start;
      } else if (i > start && buf[i - 1] === CR) throw new BadRequest(400, "Bare CR");
    }
    return -1;
  }

  /** The buffered bytes up to `to` as ISO-8859-1 text, consuming them up to `past`. */
  #take(to: number, past: number): string {
    const text = this.#text.toString("latin1", this.#start, this.#start + to);
    this.#start += past;
    return text;
  }
}
