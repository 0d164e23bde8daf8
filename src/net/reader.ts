/**
 * A buffered reader over one connection: request heads, chunk-size lines and body bytes.
 *
 * @module
 */

/** The request head grew past the limit before its blank line (431). */
export class HeadTooLarge extends Error {
  override name = "HeadTooLarge";
}

/** The peer closed the connection in the middle of a message. */
export class UnexpectedEof extends Error {
  override name = "UnexpectedEof";
}

const CRLFCRLF = [13, 10, 13, 10];
const LATIN1 = new TextDecoder("latin1");

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
   * from the buffer), else null; throws {@link HeadTooLarge} past `maxBytes`.
   */
  takeHead(maxBytes: number): string | null {
    // Blank lines before a request are ignored (RFC 9112 section 2.2).
    if (this.#scanned === 0) {
      while (
        this.buffered > 0 && (this.#buf[this.#start] === 13 || this.#buf[this.#start] === 10)
      ) this.#start++;
    }
    // Bytes already searched are not searched again (a dribbled head costs linear time).
    const at = this.#indexOf(CRLFCRLF, Math.max(0, this.#scanned - 3));
    if (at >= 0) {
      const head = LATIN1.decode(this.#buf.subarray(this.#start, this.#start + at));
      this.#start += at + 4;
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

  /** One CRLF-terminated line (without the CRLF), at most `maxBytes` long. */
  async readLine(maxBytes: number): Promise<string> {
    for (;;) {
      const at = this.#indexOf([13, 10], 0);
      if (at >= 0) {
        const line = LATIN1.decode(this.#buf.subarray(this.#start, this.#start + at));
        this.#start += at + 2;
        return line;
      }
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

  #indexOf(pattern: number[], from: number): number {
    const buf = this.#buf;
    const last = this.#end - pattern.length;
    outer: for (let i = this.#start + from; i <= last; i++) {
      for (let j = 0; j < pattern.length; j++) if (buf[i + j] !== pattern[j]) continue outer;
      return i - this.#start;
    }
    return -1;
  }
}
