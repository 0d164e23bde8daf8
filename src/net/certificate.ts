/**
 * A TLS certificate chain and its private key (PEM), checked to belong together, with what the
 * logs and the metrics show of it (never the key).
 *
 * @module
 */
import { createPrivateKey, X509Certificate } from "node:crypto";

/** A certificate chain and key that belong together. */
export interface Certificate {
  /** The chain, leaf first (PEM). */
  cert: string;
  /** The private key (PEM); never logged. */
  key: string;
  /** The leaf's subject, e.g. `CN=forms.example.org`. */
  subject: string;
  /** The leaf's DNS names (subjectAltName). */
  domains: string[];
  /** The end of the leaf's validity. */
  notAfter: Date;
  /** SHA-256 fingerprint of the leaf (`AB:CD:…`). */
  fingerprint: string;
}

/** The PEM is not a certificate and key that belong together; the message says why. */
export class CertificateError extends Error {
  override name = "CertificateError";
}

/**
 * Parses and checks a chain and its key; `where` names their source in errors.
 *
 * @example
 * ```ts
 * const certificate = parseCertificate(certPem, keyPem, "server.tls.cert_file");
 * certificate.notAfter; // 2027-01-01T00:00:00.000Z
 * ```
 * @throws {CertificateError} when either does not parse or the key is not the leaf's.
 */
export function parseCertificate(cert: string, key: string, where: string): Certificate {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch {
    throw new CertificateError(`${where}: no PEM certificate could be read`);
  }
  let matches: boolean;
  try {
    matches = leaf.checkPrivateKey(createPrivateKey(key));
  } catch {
    throw new CertificateError(`${where}: no PEM private key could be read`);
  }
  if (!matches) {
    throw new CertificateError(`${where}: the private key does not belong to the certificate`);
  }
  return {
    cert,
    key,
    subject: leaf.subject,
    domains: (leaf.subjectAltName ?? "").split(/,\s*/)
      .filter((name) => name.startsWith("DNS:"))
      .map((name) => name.slice(4)),
    notAfter: new Date(leaf.validTo),
    fingerprint: leaf.fingerprint256,
  };
}

/** What a log line says of a certificate. */
export function describeCertificate(certificate: Certificate): Record<string, string> {
  return {
    subject: certificate.subject,
    not_after: certificate.notAfter.toISOString(),
    fingerprint: certificate.fingerprint,
  };
}
