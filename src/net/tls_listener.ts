/**
 * The HTTPS listener: a TCP listener whose connections speak TLS (tls_conn.ts) with the
 * certificate in use when each one's handshake starts. A new certificate is swapped in with
 * {@link TlsListener.use}: the socket never closes, connections up keep their session, and the
 * next handshake gets the new one, so a swap under load fails no request.
 *
 * Delete it, with its connections' TLS, when the runtime's TLS server (`Deno.serve`, or
 * `Deno.listenTls` under the accept loop) can change its certificate for new handshakes
 * without a new listener: both take a fixed `cert` and `key` (Deno 2.9.6).
 *
 * @module
 */
import tls from "node:tls";
import type { Certificate } from "./certificate.ts";
import type { ConnListener } from "./listener.ts";
import { TlsConn } from "./tls_conn.ts";

/**
 * Accepts TCP connections and hands them out as TLS connections, for `serveHttp`.
 *
 * @example
 * ```ts
 * const listener = TlsListener.listen({ hostname: "0.0.0.0", port: 443 });
 * listener.use(parseCertificate(cert, key, "cert_file"));
 * const server = serveHttp(listener, limits, app.fetch);
 * ```
 */
export class TlsListener implements ConnListener {
  #context: tls.SecureContext | null = null;
  #certificate: Certificate | null = null;

  constructor(private tcp: Deno.TcpListener) {}

  /** Listens on `hostname:port`; throws as `Deno.listen` does. */
  static listen(options: { hostname: string; port: number }): TlsListener {
    return new TlsListener(Deno.listen({ ...options, transport: "tcp" }));
  }

  /** The address it listens on. */
  get addr(): Deno.NetAddr {
    return this.tcp.addr;
  }

  /** The certificate new handshakes get (null until one is set). */
  get certificate(): Certificate | null {
    return this.#certificate;
  }

  /** Serves `certificate` to every handshake from now on. */
  use(certificate: Certificate): void {
    this.#context = tls.createSecureContext({ cert: certificate.cert, key: certificate.key });
    this.#certificate = certificate;
  }

  /** The next connection, its handshake still to come (on its first read). */
  async accept(): Promise<TlsConn> {
    const conn = await this.tcp.accept();
    return new TlsConn(conn, () => this.#context);
  }

  /** Stops listening. */
  close(): void {
    this.tcp.close();
  }
}
