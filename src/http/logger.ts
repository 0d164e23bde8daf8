/**
 * Structured request log: one JSON line per request, never bodies, tokens or keys.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";

/** Logs method, route template, status and duration of each request. */
export function requestLog(write: (line: string) => void = console.log): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    write(JSON.stringify({
      time: new Date().toISOString(),
      method: c.req.method,
      // The template (`/submissions/:id`), never the concrete path: ids stay out of logs.
      path: routePath(c, -1),
      status: c.res.status,
      ms: Math.round((performance.now() - start) * 100) / 100,
    }));
  };
}
