/**
 * Opens sealed boxes on a worker thread, so that opening (CPU) overlaps the store work of the
 * main thread during ingest.
 *
 * @module
 */
import { CryptoError, type CryptoErrorCode } from "../crypto/errors.ts";
import { openWorkerUrl } from "./open_worker_url.ts";

/** One box to open. */
export interface OpenRequest {
  id: number;
  ciphertext: Uint8Array;
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

/** The worker's answer to one box: the plaintext, or why it could not open the box. */
export interface OpenReply {
  id: number;
  plain?: Uint8Array;
  error?: { code: string; message: string };
}

/** Answers go back in groups of this many (and at the end of each batch). */
export const REPLY_GROUP = 32;

/**
 * A worker that opens sealed boxes. The boxes asked for in one tick travel as one message,
 * and answers come back in groups, so a page of a queue costs a few messages rather than two
 * per box. Close it when done (a live worker keeps the process running).
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
  #worker = new Worker(openWorkerUrl(), { type: "module" });
  #waiting = new Map<number, PromiseWithResolvers<Uint8Array>>();
  #batch: OpenRequest[] = [];
  #next = 0;
  #closed = false;

  constructor() {
    this.#worker.onmessage = ({ data }: MessageEvent<OpenReply[]>) => {
      for (const reply of data) {
        const waiter = this.#waiting.get(reply.id);
        this.#waiting.delete(reply.id);
        if (!waiter) continue;
        if (reply.plain) waiter.resolve(reply.plain);
        else {
          const { code, message } = reply.error!;
          waiter.reject(new CryptoError(code as CryptoErrorCode, message));
        }
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
    if (this.#batch.length === 0) setTimeout(() => this.#flush(), 0);
    this.#batch.push({ id, ciphertext, publicKey, secretKey });
    return waiter.promise;
  }

  /** Stops the worker; boxes still being opened are rejected. */
  close(): void {
    this.#closed = true;
    this.#batch = [];
    this.#worker.terminate();
    this.#failAll(new Error("The opener is closed"));
  }

  #flush(): void {
    if (this.#closed || this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    this.#worker.postMessage(batch);
  }

  #failAll(err: Error): void {
    for (const waiter of this.#waiting.values()) waiter.reject(err);
    this.#waiting.clear();
  }
}
