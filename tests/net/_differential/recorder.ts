/**
 * The application of the differential suite on Sealpost's side: it records each request it
 * is handed, by the client's port, as tests/net/_llhttp_server.mjs does on Node's side.
 */
import type { FetchHandler } from "../../../src/net/connection.ts";
import { latin1Text } from "./latin1.ts";

/** How the handler treats a request body: reads it whole, or leaves it to the server. */
export type BodyMode = "read" | "ignore";

/** What a handler saw of one request. */
export interface HandlerRecord {
  method: string;
  /** The pathname of the request URL. */
  path: string;
  /** The body read (Latin-1), or null when not read (GET, HEAD, or an ignored body). */
  body: string | null;
  /** Whether reading the body failed (the connection ended or the framing broke inside it). */
  error: boolean;
  /**
   * Whether the server read the whole message (Node's `req.complete`); absent where the
   * handler cannot tell (Sealpost, a body it did not read).
   */
  complete?: boolean;
}

/** How long {@link Recorder.take} waits for a client's requests to settle. */
const SETTLE_MS = 1000;

/**
 * Records requests by client port; `handler` is the fetch handler to serve. GET and HEAD
 * bodies are never read (Sealpost hands the application none); other bodies are read unless
 * the port's mode is "ignore". Every request is answered 204 with `x-handler: 1`.
 */
export class Recorder {
  #records = new Map<number, HandlerRecord[]>();
  #pending = new Map<number, Promise<unknown>[]>();
  #modes = new Map<number, BodyMode>();

  /** Sets how requests from `port` treat their bodies. */
  setMode(port: number, mode: BodyMode): void {
    this.#modes.set(port, mode);
  }

  /** The records of `port` once its requests settled (bounded); then forgets the port. */
  async take(port: number): Promise<HandlerRecord[]> {
    const waits = this.#pending.get(port) ?? [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled(waits),
      new Promise((resolve) => timer = setTimeout(resolve, SETTLE_MS)),
    ]);
    clearTimeout(timer);
    const taken = this.#records.get(port) ?? [];
    this.#records.delete(port);
    this.#pending.delete(port);
    this.#modes.delete(port);
    return taken;
  }

  /** The application: records the request, reads its body or not, answers 204. */
  handler: FetchHandler = (request, info) => {
    const port = info.remoteAddr.port;
    const record: HandlerRecord = {
      method: request.method,
      path: new URL(request.url).pathname,
      body: null,
      error: false,
    };
    const list = this.#records.get(port) ?? [];
    this.#records.set(port, list);
    list.push(record);
    const read = request.method !== "GET" && request.method !== "HEAD" &&
      this.#modes.get(port) !== "ignore";
    const served = (async () => {
      if (read) {
        try {
          record.body = latin1Text(new Uint8Array(await request.arrayBuffer()));
          record.complete = true;
        } catch {
          record.error = true;
          record.complete = false;
        }
      }
      return new Response(null, { status: 204, headers: { "x-handler": "1" } });
    })();
    const waits = this.#pending.get(port) ?? [];
    this.#pending.set(port, waits);
    waits.push(served);
    return served;
  };
}
