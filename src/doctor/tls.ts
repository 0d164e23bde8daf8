/**
 * `tls_certificate`: how long the certificate has left. With an https base URL, from the
 * certificate the server presents (node:tls: `Deno.connectTls` reports only the ALPN protocol
 * of a handshake, not the peer certificate); else from `server.tls.cert_file` read with
 * node:crypto's X509Certificate when the config names one.
 *
 * @module
 */
import { hostKind } from "../config/address.ts";
import { X509Certificate } from "node:crypto";
import { connect, type PeerCertificate } from "node:tls";
import { check, type CheckResult, NETWORK_TIMEOUT_MS, reason } from "./check.ts";

/** Days left under which the check fails: renewal (ACME renews 30 days ahead) has not worked. */
export const FAIL_DAYS = 7;
/** Days left under which the check warns. */
export const WARN_DAYS = 21;

const DAY_MS = 86_400_000;

/** What the server presented: expiry, and whether this machine trusts it for the name. */
export interface PeerCertificateInfo {
  validTo: Date;
  subject: string;
  /** Null when trusted for the host name; else the reason (untrusted issuer, other name). */
  untrusted: string | null;
}

/**
 * Connects to `host:port` with TLS (SNI `host`) and reads the presented certificate. Trust is
 * this machine's roots plus `DENO_CERT`, as for every other connection Deno makes.
 *
 * @example
 * ```ts
 * const peer = await peerCertificate("forms.example.org", 443);
 * ```
 */
export function peerCertificate(host: string, port: number): Promise<PeerCertificateInfo> {
  const isIp = /^[\d.]+$/.test(host) || host.includes(":");
  return new Promise((resolve, reject) => {
    const socket = connect({
      host,
      port,
      servername: isIp ? undefined : host,
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TLS handshake within ${NETWORK_TIMEOUT_MS / 1000} s`));
    }, NETWORK_TIMEOUT_MS);
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const cert: PeerCertificate = socket.getPeerCertificate();
      socket.destroy();
      resolve({
        validTo: new Date(cert.valid_to),
        subject: cert.subjectaltname || cert.subject?.CN || "",
        untrusted: socket.authorized ? null : String(socket.authorizationError),
      });
    });
  });
}

/**
 * The expiry of the first certificate in the PEM file `path` (the leaf, in a chain file).
 *
 * @example
 * ```ts
 * const { validTo } = await certificateFile("/etc/sealpost/cert.pem");
 * ```
 */
export async function certificateFile(path: string): Promise<{ validTo: Date; subject: string }> {
  const x509 = new X509Certificate(await Deno.readTextFile(path));
  return { validTo: new Date(x509.validTo), subject: x509.subjectAltName ?? x509.subject };
}

function daysVerdict(source: string, validTo: Date, now: number): CheckResult {
  const days = Math.floor((validTo.getTime() - now) / DAY_MS);
  const words = `${source} expires ${validTo.toISOString()}, in ${days} days`;
  if (days < 0) {
    return check("tls_certificate", "fail", `${source} expired ${validTo.toISOString()}`);
  }
  if (days < FAIL_DAYS) {
    return check(
      "tls_certificate",
      "fail",
      `${words}: renewal is not working (ACME renews 30 days ahead); see the server's log`,
    );
  }
  return check("tls_certificate", days < WARN_DAYS ? "warn" : "ok", words);
}

/**
 * `tls_certificate` for `baseUrl`: the presented certificate when it is https, else the
 * configured `certFile` (empty: none). A plain http base URL on a public name warns: senders'
 * browsers would send their sealed envelopes, and the form page, over an unauthenticated link.
 */
export async function tlsCheck(
  baseUrl: string,
  certFile: string,
  now = Date.now(),
): Promise<CheckResult> {
  const name = "tls_certificate";
  const url = new URL(baseUrl);
  if (url.protocol === "https:") {
    const host = url.hostname.replace(/^\[|\]$/g, "");
    try {
      const peer = await peerCertificate(host, Number(url.port || 443));
      if (peer.untrusted) {
        return check(
          name,
          "fail",
          `the certificate ${url.host} presents is not trusted here (${peer.untrusted}); ` +
            "browsers will refuse it",
        );
      }
      return daysVerdict(`the certificate ${url.host} presents`, peer.validTo, now);
    } catch (err) {
      return check(name, "fail", `no TLS handshake with ${url.host}: ${reason(err)}`);
    }
  }
  if (certFile !== "") {
    try {
      const file = await certificateFile(certFile);
      return daysVerdict(`server.tls.cert_file ${certFile}`, file.validTo, now);
    } catch (err) {
      return check(name, "fail", `server.tls.cert_file ${certFile} cannot be read: ${reason(err)}`);
    }
  }
  // The same rule as the console's warning (src/config/address.ts): only a public name needs TLS.
  if (hostKind(url.hostname) !== "public") {
    return check(
      name,
      "skip",
      `${url.hostname} is reached without TLS (a loopback or private address, or an onion ` +
        "service's own encryption)",
    );
  }
  return check(
    name,
    "warn",
    `${baseUrl} is plain http on a public name: turn on [server.tls] or put a TLS proxy in ` +
      "front (docs/deploy.md)",
  );
}
