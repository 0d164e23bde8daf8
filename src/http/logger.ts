/**
 * Structured request log: one JSON line per request, never bodies, tokens or keys.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { routeTemplate } from "./route_template.ts";

/**
 * A line writer that batches lines and writes them to stdout at most every `intervalMs`,
 * so a busy server does one write per batch instead of one per request.
 */
export class BufferedLines {
  #lines: string[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private sink: (text: string) => void = (text) =>
      Deno.stdout.writeSync(new TextEncoder().encode(text)),
    private intervalMs = 50,
  ) {}

  /** Queues one line. */
  write = (line: string): void => {
    this.#lines.push(line);
    this.#timer ??= setTimeout(this.flush, this.intervalMs);
  };

  /** Writes everything queued now. */
  flush = (): void => {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#lines.length === 0) return;
    const text = this.#lines.join("\n") + "\n";
    this.#lines = [];
    this.sink(text);
  };
}

/** Logs method, route template, status and duration of each request. */
export function requestLog(write: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    write(JSON.stringify({
      time: new Date().toISOString(),
      method: c.req.method,
      // The template (`/submissions/:id`), never the concrete path: ids stay out of logs.
      path: routeTemplate(c),
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 100) / 100,
    }));
  };
}
