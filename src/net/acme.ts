/**
 * Certificates from an ACME CA (`[server.tls.acme]`) through `acme-client`, with the HTTP-01
 * challenge answered on `server.http_port` (http_redirect.ts). The account key, the certificate
 * and its key are kept 0600 in `<data_dir>/tls/`; a kept certificate is used again at start
 * while it covers the configured domains of the same CA. Renewal (renewal.ts) runs 30 days
 * before expiry, with a doubling wait after failures; each new certificate goes to `use`.
 *
 * @module
 */
import acme from "acme-client";
import https from "node:https";
import { join } from "node:path";
import { readIfExists, writeSecretFile } from "../store/data_dir.ts";
import { type Certificate, describeCertificate, parseCertificate } from "./certificate.ts";
import { nextCheckIn, renewalDue, retryIn } from "./renewal.ts";

/** What `[server.tls.acme]` says. */
export interface AcmeSettings {
  domains: string[];
  email: string;
  directoryUrl: string;
  /** PEM root trusted for the directory ("" = the system's). */
  caFile: string;
}

/** Time limit of one request to the CA. */
const REQUEST_TIMEOUT_MS = 30_000;
/** The longest subject common name (the names all go in subjectAltName anyway). */
const MAX_COMMON_NAME = 64;

/** The files of `<data_dir>/tls/`. */
export function acmePaths(dataDir: string) {
  const dir = join(dataDir, "tls");
  return {
    dir,
    accountKey: join(dir, "account.key"),
    cert: join(dir, "cert.pem"),
    key: join(dir, "key.pem"),
    /** The directory URL and domains the kept certificate was issued for. */
    order: join(dir, "order.json"),
  };
}

/**
 * Obtains, keeps and renews the certificate of `settings.domains`.
 *
 * @example
 * ```ts
 * const acme = new AcmeCertificates(settings, config.data_dir, (c) => listener.use(c), log);
 * await acme.start(); // a kept certificate is used at once; else one is ordered in the background
 * acme.challenges.get(token); // the key authorization the HTTP listener answers with
 * ```
 */
export class AcmeCertificates {
  /** Key authorizations of the HTTP-01 challenges in progress, by token. */
  readonly challenges = new Map<string, string>();
  #current: Certificate | null = null;
  #ordering: Promise<Certificate> | null = null;
  #failures = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #paths: ReturnType<typeof acmePaths>;

  constructor(
    private settings: AcmeSettings,
    dataDir: string,
    private use: (certificate: Certificate) => void,
    private log: (line: string) => void,
    private now: () => number = Date.now,
  ) {
    this.#paths = acmePaths(dataDir);
  }

  /** The certificate in use (null until the first is issued). */
  get current(): Certificate | null {
    return this.#current;
  }

  /**
   * Uses the kept certificate when it still fits, and starts the renewal schedule: a missing or
   * due certificate is ordered at once (in the background).
   */
  async start(): Promise<void> {
    await Deno.mkdir(this.#paths.dir, { recursive: true, mode: 0o700 });
    const kept = await this.#kept();
    if (kept) {
      this.#current = kept;
      this.use(kept);
    }
    this.#schedule(nextCheckIn(this.#current?.notAfter ?? null, this.now()));
  }

  /** Orders a new certificate now (one order at a time), keeps it and swaps it in. */
  renew(): Promise<Certificate> {
    return this.#ordering ??= this.#order().finally(() => this.#ordering = null);
  }

  /** Stops the schedule (an order in progress finishes). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #schedule(delayMs: number) {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#check(), delayMs);
  }

  async #check() {
    const current = this.#current;
    if (current && !renewalDue(current.notAfter, this.now())) {
      this.#schedule(nextCheckIn(current.notAfter, this.now()));
      return;
    }
    try {
      const issued = await this.renew();
      this.#failures = 0;
      this.#schedule(nextCheckIn(issued.notAfter, this.now()));
    } catch (err) {
      this.#failures++;
      const wait = retryIn(this.#failures);
      this.log(JSON.stringify({
        level: "error",
        msg: "TLS certificate not obtained from the ACME CA; retrying",
        domains: this.settings.domains,
        error: (err as Error).message,
        failures: this.#failures,
        retry_in_seconds: wait / 1000,
      }));
      this.#schedule(wait);
    }
  }

  /** The kept certificate, when it was issued by this CA for every configured domain. */
  async #kept(): Promise<Certificate | null> {
    const [order, cert, key] = await Promise.all(
      [this.#paths.order, this.#paths.cert, this.#paths.key].map(readIfExists),
    );
    if (order === null || cert === null || key === null) return null;
    let certificate: Certificate;
    let directoryUrl: string;
    try {
      directoryUrl = (JSON.parse(order) as { directoryUrl: string }).directoryUrl;
      certificate = parseCertificate(cert, key, this.#paths.cert);
    } catch (err) {
      this.log(JSON.stringify({
        level: "warn",
        msg: "The kept TLS certificate cannot be used; ordering a new one",
        error: (err as Error).message,
      }));
      return null;
    }
    const covered = this.settings.domains.every((d) => certificate.domains.includes(d));
    return directoryUrl === this.settings.directoryUrl && covered ? certificate : null;
  }

  async #order(): Promise<Certificate> {
    const { domains, email, directoryUrl } = this.settings;
    await this.#trustCa();
    const client = new acme.Client({ directoryUrl, accountKey: await this.#accountKey() });
    const commonName = domains[0].length <= MAX_COMMON_NAME ? domains[0] : undefined;
    const [key, csr] = await acme.crypto.createCsr(
      { commonName, altNames: domains },
      await acme.crypto.createPrivateEcdsaKey(),
    );
    const chain = await client.auto({
      csr,
      email: email || undefined,
      // Enabling ACME is the operator's agreement to the CA's terms (docs/security.md).
      termsOfServiceAgreed: true,
      challengePriority: ["http-01"],
      // The CA validates; a check from here would need this host's public DNS and port 80.
      skipChallengeVerification: true,
      challengeCreateFn: (_authz, challenge, keyAuthorization) => {
        this.challenges.set(challenge.token, keyAuthorization);
        return Promise.resolve();
      },
      challengeRemoveFn: (_authz, challenge) => {
        this.challenges.delete(challenge.token);
        return Promise.resolve();
      },
    });
    const certificate = parseCertificate(chain, key.toString(), directoryUrl);
    await writeSecretFile(this.#paths.key, certificate.key);
    await writeSecretFile(this.#paths.cert, certificate.cert);
    await writeSecretFile(this.#paths.order, JSON.stringify({ directoryUrl, domains }));
    this.#current = certificate;
    this.use(certificate);
    this.log(JSON.stringify({
      level: "info",
      msg: "TLS certificate issued by the ACME CA",
      domains,
      ...describeCertificate(certificate),
    }));
    return certificate;
  }

  /** The account key, made (and kept 0600) on first use. */
  async #accountKey(): Promise<string> {
    const kept = await readIfExists(this.#paths.accountKey);
    if (kept !== null) return kept;
    const made = (await acme.crypto.createPrivateEcdsaKey()).toString();
    await writeSecretFile(this.#paths.accountKey, made);
    return made;
  }

  /**
   * Points acme-client's HTTP client (one per process, shared by every client it makes) at the
   * configured CA root, and bounds its requests.
   */
  async #trustCa() {
    const { caFile } = this.settings;
    acme.axios.defaults.timeout = REQUEST_TIMEOUT_MS;
    acme.axios.defaults.httpsAgent = caFile
      ? new https.Agent({ ca: await Deno.readTextFile(caFile) })
      : undefined;
  }
}
