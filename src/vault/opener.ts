/**
 * Opens sealed boxes on a worker thread, so that opening (CPU) overlaps the store work of the
 * main thread during ingest.
 *
 * @module
 */
import { CryptoError, type CryptoErrorCode } from "../crypto/errors.ts";

/** One box to open (the message to the worker). */
export interface OpenRequest {
  id: number;
  ciphertext: Uint8Array;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** The worker's answer: the plaintext, or why it could not open the box. */
export interface OpenReply {
  id: number;
  plain?: Uint8Array;
  error?: { code: string; message: string };
}

/**
 * A worker that opens sealed boxes; answers arrive in the order asked. Close it when done
 * (a live worker keeps the process running).
 *
 * @example
 * ```ts
 * const opener = new SealedBoxOpener();
 * try {
 *   const plain = await opener.open(ciphertext, publicKey, secretKey);
 * } finally {
 *   opener.close();
 * }
 * ```
 */
export class SealedBoxOpener {
  #worker = new Worker(new URL("./open_worker.ts", import.meta.url), { type: "module" });
  #waiting = new Map<number, PromiseWithResolvers<Uint8Array>>();
  #next = 0;
  #closed = false;

  constructor() {
    this.#worker.onmessage = ({ data }: MessageEvent<OpenReply>) => {
      const waiter = this.#waiting.get(data.id);
      this.#waiting.delete(data.id);
      if (!waiter) return;
      if (data.plain) waiter.resolve(data.plain);
      else {
        const { code, message } = data.error!;
        waiter.reject(new CryptoError(code as CryptoErrorCode, message));
      }
    };
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.#failAll(new Error(`The opening worker failed: ${event.message}`));
    };
  }

  /** The plaintext of `ciphertext`, sealed to `publicKey`; rejects like `open` does. */
  open(ciphertext: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
    if (this.#closed) return Promise.reject(new Error("The opener is closed"));
    const id = this.#next++;
    const waiter = Promise.withResolvers<Uint8Array>();
    this.#waiting.set(id, waiter);
    this.#worker.postMessage({ id, ciphertext, publicKey, secretKey } satisfies OpenRequest);
    return waiter.promise;
  }

  /** Stops the worker; boxes still being opened are rejected. */
  close(): void {
    this.#closed = true;
    this.#worker.terminate();
    this.#failAll(new Error("The opener is closed"));
  }

  #failAll(err: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(err);
    this.#waiting.clear();
  }
}
