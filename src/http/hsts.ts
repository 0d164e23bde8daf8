/**
 * `Strict-Transport-Security` on the responses to requests that came over this instance's own
 * TLS (`[server.tls]`: src/net makes their URLs `https:`), so browsers keep to https. Behind a
 * proxy that ends TLS, the requests are `http:` here and the proxy is the one to send it.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";

/** The header's value: one year, this host only (subdomains may be other services). */
export const HSTS_VALUE = "max-age=31536000";

/**
 * The middleware; register it first so it sees every response, errors included.
 *
 * @example
 * ```ts
 * app.use(hsts());
 * ```
 */
export function hsts(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!c.req.url.startsWith("https:")) return;
    try {
      c.res.headers.set("strict-transport-security", HSTS_VALUE);
    } catch {
      // A response with immutable headers (a fetched one, Response.redirect): copy it.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("strict-transport-security", HSTS_VALUE);
    }
  };
}
