/**
 * The route template a request matched (`/submissions/:submissionId`), for logs and metrics:
 * never the concrete path, so ids stay out of both.
 *
 * @module
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/**
 * The template of the last handler (not middleware) that matched `c`, else `/*` (nothing but
 * middleware matched: a 404). Middleware registered after a route (`app.use` with method ALL)
 * would otherwise stand last in the matched list.
 *
 * @example
 * ```ts
 * app.use(async (c, next) => {
 *   await next();
 *   console.log(routeTemplate(c)); // "/forms/:formId/manifest"
 * });
 * ```
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    if (routes[i].method !== "ALL") return routes[i].path;
  }
  return "/*";
}
