/**
 * Server-side TLS on one accepted TCP connection, through `node:tls`, with the certificate of
 * the moment the connection is first read: the listener's socket stays open while certificates
 * change (tls_listener.ts), so a swap fails no connection.
 *
 * Why not `Deno.listenTls` (measured on Deno 2.9.6): its certificate is fixed for the listener's
 * life (the unstable SNI resolver answers once per server name and caches it); replacing the
 * listener with `reusePort` resets the connections queued on the old one when it closes (46 to
 * 81 failed requests in 49 swaps under load); and Deno has no server-side `startTls`. Delete this
 * module in favour of the runtime's TLS when `Deno.listenTls` can change its certificate.
 *
 * The cost (loopback, 2 cores shared with the client, through serveHttp): against
 * `Deno.listenTls` on the same accept loop, about 10-20% fewer requests per second when each
 * opens a connection (926-1108 against 1134-1243) and 10-30% fewer on kept-alive connections
 * (6467-8213 against 7638-9224). `node:net` accepting instead of `Deno.listen` measured 1146 and
 * 7313, but would take the accept loop (its caps and EMFILE handling) away from listener.ts.
 *
 * The handshake runs on the first read, which the connection times with the header timeout: a
 * client that never finishes it is cut like one that never sends its request head. The TCP
 * connection is closed here on close(): with `Deno.listenTls`, closing a connection whose
 * handshake was pending left its socket open (still open 12 s after a 1 s header timeout).
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { Duplex } from "node:stream";
import tls from "node:tls";
import type { ServedConn } from "./connection.ts";
import { writeAll } from "./response_writer.ts";

/** Bytes asked of the TCP connection per read. */
const READ_BYTES = 16 * 1024;
/** Decrypted chunks held for the reader before the socket is paused. */
const HIGH_WATER = 8;

/** No certificate to answer with yet (ACME has not issued the first one). */
class NoCertificate extends Error {
  override name = "NoCertificate";
}

/**
 * One TLS connection, read and written like a `Deno.Conn` (one read at a time).
 *
 * @example
 * ```ts
 * const conn = new TlsConn(await tcpListener.accept(), () => secureContext);
 * const n = await conn.read(buffer); // handshake, then decrypted bytes
 * ```
 */
export class TlsConn implements ServedConn {
  /** Requests on it are `https:` URLs. */
  readonly secure = true;
  readonly remoteAddr: Deno.NetAddr;
  #socket: tls.TLSSocket | null = null;
  #chunks: Buffer[] = [];
  #ended = false;
  #error: Error | null = null;
  #wake: (() => void) | null = null;
  #closed = false;

  constructor(private tcp: Deno.TcpConn, private context: () => tls.SecureContext | null) {
    this.remoteAddr = tcp.remoteAddr as Deno.NetAddr;
  }

  /** The TLS socket, started on first use with the context of that moment. */
  #started(): tls.TLSSocket {
    if (this.#socket) return this.#socket;
    if (this.#closed) throw new Deno.errors.BadResource("The connection is closed");
    const secureContext = this.context();
    if (!secureContext) throw new NoCertificate("No TLS certificate yet");
    const socket = this.#socket = new tls.TLSSocket(tcpStream(this.tcp), {
      isServer: true,
      secureContext,
    });
    socket.on("data", (chunk: Buffer) => {
      this.#chunks.push(chunk);
      if (this.#chunks.length >= HIGH_WATER) socket.pause();
      this.#notify();
    });
    socket.on("end", () => this.#finish(null));
    socket.on("close", () => this.#finish(null));
    socket.on("error", (err: Error) => this.#finish(err));
    return socket;
  }

  #finish(err: Error | null) {
    this.#ended = true;
    this.#error ??= err;
    this.#notify();
  }

  #notify() {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /** Reads decrypted bytes into `into`; null at the end of the stream. */
  async read(into: Uint8Array): Promise<number | null> {
    const socket = this.#started();
    while (this.#chunks.length === 0) {
      if (this.#error) throw this.#error;
      if (this.#ended || this.#closed) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
    }
    const chunk = this.#chunks[0];
    const n = Math.min(chunk.byteLength, into.byteLength);
    into.set(chunk.subarray(0, n));
    if (n === chunk.byteLength) this.#chunks.shift();
    else this.#chunks[0] = chunk.subarray(n);
    if (this.#chunks.length < HIGH_WATER / 2 && socket.isPaused()) socket.resume();
    return n;
  }

  /** Encrypts and sends all of `bytes`; resolves once they are handed to the TCP connection. */
  write(bytes: Uint8Array): Promise<number> {
    const socket = this.#started();
    return new Promise((resolve, reject) => {
      socket.write(bytes, (err) => err ? reject(err) : resolve(bytes.byteLength));
    });
  }

  /** Closes the connection now (a pending read ends). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket?.destroy();
    try {
      this.tcp.close();
    } catch { /* closed with the socket */ }
    this.#notify();
  }

  /** Sets TCP_NODELAY on the TCP connection. */
  setNoDelay(noDelay?: boolean): void {
    this.tcp.setNoDelay(noDelay);
  }
}

/** A `node:stream` duplex over a TCP connection: what `tls.TLSSocket` reads and writes. */
function tcpStream(tcp: Deno.TcpConn): Duplex {
  return new Duplex({
    read() {
      const buffer = new Uint8Array(READ_BYTES);
      tcp.read(buffer).then(
        (n) => this.push(n === null ? null : Buffer.from(buffer.buffer, 0, n)),
        (err) => this.destroy(err),
      );
    },
    write(chunk: Buffer, _encoding, callback) {
      writeAll(tcp, chunk).then(() => callback(), callback);
    },
    destroy(err, callback) {
      try {
        tcp.close();
      } catch { /* closed already */ }
      callback(err);
    },
  });
}
