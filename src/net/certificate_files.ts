/**
 * Certificate files (`server.tls.cert_file` and `key_file`): read at start, read again on
 * SIGHUP and when their folders change (debounced, so a chain and key written one after the
 * other are read together). A pair that does not parse or does not belong together is logged
 * and the certificate in use stays.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { type Certificate, describeCertificate, parseCertificate } from "./certificate.ts";

/** Quiet time after the last change in the files' folders before they are read. */
export const RELOAD_DEBOUNCE_MS = 300;

/**
 * The certificate of two PEM files, handed to `use` at start and whenever it changes.
 *
 * @example
 * ```ts
 * const files = await CertificateFiles.open({ cert, key }, (c) => listener.use(c), log);
 * files.close();
 * ```
 */
export class CertificateFiles {
  #current: Certificate;
  #watcher: Deno.FsWatcher | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Reloads run one after another, each reading the files as they are then. */
  #queue: Promise<unknown> = Promise.resolve();
  #onHangup = () => void this.reload("SIGHUP");

  private constructor(
    private paths: { cert: string; key: string },
    first: Certificate,
    private use: (certificate: Certificate) => void,
    private log: (line: string) => void,
  ) {
    this.#current = first;
  }

  /**
   * Reads the pair (throwing `CertificateError` or a file error when it cannot be served), hands
   * it to `use`, and starts watching.
   */
  static async open(
    paths: { cert: string; key: string },
    use: (certificate: Certificate) => void,
    log: (line: string) => void,
  ): Promise<CertificateFiles> {
    const absolute = { cert: resolve(paths.cert), key: resolve(paths.key) };
    const first = await read(absolute);
    use(first);
    const files = new CertificateFiles(absolute, first, use, log);
    files.#watch();
    return files;
  }

  /** The certificate in use. */
  get current(): Certificate {
    return this.#current;
  }

  #watch() {
    const folders = [...new Set([dirname(this.paths.cert), dirname(this.paths.key)])];
    const watcher = this.#watcher = Deno.watchFs(folders, { recursive: false });
    (async () => {
      for await (const _event of watcher) {
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => void this.reload("file change"), RELOAD_DEBOUNCE_MS);
      }
    })().catch(() => {/* closed */});
    Deno.addSignalListener("SIGHUP", this.#onHangup);
  }

  /**
   * Reads the files again and swaps a changed certificate in; false when they could not be
   * read (logged; the certificate in use stays) or did not change.
   */
  reload(reason: string): Promise<boolean> {
    const run = this.#queue.then(() => this.#reload(reason));
    this.#queue = run;
    return run;
  }

  async #reload(reason: string): Promise<boolean> {
    let next: Certificate;
    try {
      next = await read(this.paths);
    } catch (err) {
      this.log(JSON.stringify({
        level: "error",
        msg: "TLS certificate not reloaded; the previous one stays in use",
        reason,
        error: (err as Error).message,
      }));
      return false;
    }
    if (next.cert === this.#current.cert && next.key === this.#current.key) return false;
    this.use(next);
    this.#current = next;
    this.log(JSON.stringify({
      level: "info",
      msg: "TLS certificate reloaded",
      reason,
      ...describeCertificate(next),
    }));
    return true;
  }

  /** Stops watching. */
  close(): void {
    clearTimeout(this.#timer);
    Deno.removeSignalListener("SIGHUP", this.#onHangup);
    try {
      this.#watcher?.close();
    } catch { /* closed */ }
  }
}

async function read(paths: { cert: string; key: string }): Promise<Certificate> {
  const [cert, key] = await Promise.all([
    Deno.readTextFile(paths.cert),
    Deno.readTextFile(paths.key),
  ]);
  return parseCertificate(cert, key, `${paths.cert} and ${paths.key}`);
}
