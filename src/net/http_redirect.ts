/**
 * The plain-HTTP listener of a TLS instance (`server.http_port`): answers ACME HTTP-01
 * challenges (`/.well-known/acme-challenge/{token}`) and sends every other request to the same
 * path on the https address with a 308 (method and body kept).
 *
 * @module
 */
import type { FetchHandler } from "./connection.ts";
import { plainError } from "./response_writer.ts";

const CHALLENGE_PREFIX = "/.well-known/acme-challenge/";

/**
 * The plain-HTTP handler: `keyAuthorization(token)` answers a challenge (null: none pending),
 * `httpsBase()` is the https base URL to redirect to.
 *
 * @example
 * ```ts
 * serveHttp({ hostname, port: 80 }, limits, httpRedirect((t) => acme.challenges.get(t) ?? null, () => baseUrl));
 * ```
 */
export function httpRedirect(
  keyAuthorization: (token: string) => string | null,
  httpsBase: () => string,
): FetchHandler {
  return (request) => {
    const url = new URL(request.url);
    if (url.pathname.startsWith(CHALLENGE_PREFIX)) {
      const answer = request.method === "GET" || request.method === "HEAD"
        ? keyAuthorization(url.pathname.slice(CHALLENGE_PREFIX.length))
        : null;
      if (answer === null) return plainError(404, "not_found", "No such ACME challenge");
      return new Response(answer, { headers: { "content-type": "text/plain" } });
    }
    return new Response(null, {
      status: 308,
      headers: { location: `${httpsBase()}${url.pathname}${url.search}` },
    });
  };
}
