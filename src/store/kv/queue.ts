/**
 * The process's one Deno KV queue listener, shared by every feature: messages carry a
 * `kind`, and each feature registers the handler of its kinds.
 *
 * Delivery is at least once: handlers must be idempotent.
 *
 * @module
 */

/** A queue message: a kind and its data. */
export interface QueueMessage {
  kind: string;
  [field: string]: unknown;
}

/** Handles one message; throwing makes Deno KV redeliver it. */
export type QueueHandler = (message: QueueMessage) => Promise<void>;

/**
 * Routes queue messages to handlers by kind.
 *
 * @example
 * ```ts
 * const queue = new QueueDispatcher(kv);
 * queue.on("record_event", async (m) => { ... });
 * queue.start();
 * ```
 */
export class QueueDispatcher {
  #handlers = new Map<string, QueueHandler>();
  #listening: Promise<void> | null = null;

  constructor(private kv: Deno.Kv) {}

  /** Registers the handler of `kind` (one per kind). */
  on(kind: string, handler: QueueHandler): void {
    if (this.#handlers.has(kind)) throw new Error(`Queue kind "${kind}" has a handler already`);
    this.#handlers.set(kind, handler);
  }

  /** Starts listening; resolves when the store closes. */
  start(): Promise<void> {
    this.#listening ??= this.kv.listenQueue(async (raw: unknown) => {
      const message = raw as QueueMessage;
      const handler = this.#handlers.get(message?.kind);
      if (!handler) {
        console.error(
          JSON.stringify({ level: "error", msg: "No queue handler", kind: message?.kind }),
        );
        return;
      }
      await handler(message);
    });
    return this.#listening;
  }
}
