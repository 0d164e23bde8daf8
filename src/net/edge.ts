/**
 * The public edge from the configuration: the main listener, plain HTTP or HTTPS
 * (`[server.tls]`: certificate files or ACME), and with TLS on the plain-HTTP listener of
 * `server.http_port` (ACME challenges, redirects). Both go through `serveHttp`, under the same
 * limits.
 *
 * **When this folder's server can go.** Sealpost serves HTTP/1.1 itself (listener.ts,
 * connection.ts, and their parts reader.ts, request_head.ts, request_body.ts,
 * response_writer.ts) because `Deno.serve` lacks three things a server facing the internet
 * needs (Deno 2.9.6): header, idle and body-stall timeouts (denoland/deno#3515, open); serving
 * on after `accept` fails with "Too many open files" (measured: under `ulimit -n 48` its
 * `finished` rejects with "Too many open files (os error 24)" and the port refuses every later
 * connection); and a cap on open connections, in total and per address. Delete those six
 * modules when `Deno.serve` has all three, and serve with it here; the request deadline and
 * the throughput rule of large transfers (`ExchangeInfo.holdToThroughput`) then become
 * middleware that times the request body and the response stream. Delete the TLS listener and
 * its connections when `Deno.serve` can change its certificate for new handshakes without a
 * new listener (its `cert` and `key` are fixed for the server's life).
 * The certificate sources (acme.ts, certificate_files.ts, renewal.ts), the redirect listener
 * and the limits are Sealpost's own and stay.
 *
 * @module
 */
import { type Config, publicBaseUrl, tlsEnabled } from "../config/index.ts";
import { AcmeCertificates } from "./acme.ts";
import type { Certificate } from "./certificate.ts";
import { CertificateFiles } from "./certificate_files.ts";
import { connectionLimits } from "./config.ts";
import type { FetchHandler } from "./connection.ts";
import { httpRedirect } from "./http_redirect.ts";
import { type HttpServer, serveHttp } from "./listener.ts";
import { TlsListener } from "./tls_listener.ts";

/** The server could not listen (address in use, no permission, no certificate to serve). */
export class ListenError extends Error {
  override name = "ListenError";
}

/** The listeners of a running instance. */
export interface Edge {
  /** The main listener (HTTPS with TLS on). */
  main: HttpServer;
  /** Whether the main listener speaks TLS. */
  secure: boolean;
  /** The plain-HTTP listener of `server.http_port` (null when it is 0). */
  http: HttpServer | null;
  /** The certificate files, when they are the source (`reload` is what SIGHUP does). */
  files: CertificateFiles | null;
  /** The ACME certificates, when ACME is the source. */
  acme: AcmeCertificates | null;
  /** The certificate new handshakes get (null without TLS, or before ACME's first). */
  certificate(): Certificate | null;
  /** Stops the certificate sources and both listeners (exchanges in progress finish). */
  shutdown(): Promise<void>;
}

/**
 * Opens the listeners `config` asks for, serving `handler` on the main one.
 *
 * @example
 * ```ts
 * const edge = await openEdge(config, app.fetch);
 * edge.main.addr.port; // 443
 * await edge.shutdown();
 * ```
 * @throws {ListenError} naming the address or the certificate files that failed.
 */
export async function openEdge(
  config: Config,
  handler: FetchHandler,
  log: (line: string) => void = (line) => console.error(line),
): Promise<Edge> {
  const { host, port, http_port: httpPort, tls } = config.server;
  const limits = connectionLimits(config);
  if (!tlsEnabled(tls)) {
    const main = listen(host, port, () => serveHttp({ hostname: host, port }, limits, handler));
    return {
      main,
      secure: false,
      http: null,
      files: null,
      acme: null,
      certificate: () => null,
      shutdown: () => main.shutdown(),
    };
  }
  const listener = listen(host, port, () => TlsListener.listen({ hostname: host, port }));
  let files: CertificateFiles | null = null;
  if (tls.cert_file) {
    try {
      files = await CertificateFiles.open(
        { cert: tls.cert_file, key: tls.key_file },
        (certificate) => listener.use(certificate),
        log,
      );
    } catch (err) {
      listener.close();
      throw new ListenError(`Cannot serve https: ${(err as Error).message}`);
    }
  }
  const main = serveHttp(listener, limits, handler);
  const acme = tls.acme.enabled
    ? new AcmeCertificates(
      {
        domains: tls.acme.domains,
        email: tls.acme.email,
        directoryUrl: tls.acme.directory_url,
        caFile: tls.acme.ca_file,
      },
      config.data_dir,
      (certificate) => listener.use(certificate),
      log,
    )
    : null;
  let http: HttpServer | null = null;
  try {
    if (httpPort !== 0) {
      const redirect = httpRedirect(
        (token) => acme?.challenges.get(token) ?? null,
        () => publicBaseUrl(config, main.addr.port),
      );
      http = listen(
        host,
        httpPort,
        () => serveHttp({ hostname: host, port: httpPort }, limits, redirect),
      );
    }
    await acme?.start();
  } catch (err) {
    files?.close();
    acme?.close();
    await Promise.all([main.shutdown(), http?.shutdown()]);
    throw err;
  }
  return {
    main,
    secure: true,
    http,
    files,
    acme,
    certificate: () => listener.certificate,
    shutdown: async () => {
      files?.close();
      acme?.close();
      await Promise.all([main.shutdown(), http?.shutdown()]);
    },
  };
}

/** Runs `open` (a listen), turning "address in use" and "permission denied" into ListenError. */
function listen<T>(host: string, port: number, open: () => T): T {
  try {
    return open();
  } catch (err) {
    const where = `${host}:${port}`;
    if (err instanceof Deno.errors.AddrInUse) {
      throw new ListenError(`Cannot listen on ${where}: the address is in use (try --port)`);
    }
    if (err instanceof Deno.errors.PermissionDenied) {
      throw new ListenError(`Cannot listen on ${where}: permission denied`);
    }
    throw err;
  }
}
