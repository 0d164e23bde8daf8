/**
 * The HTTP side of metrics: a middleware counting every request by route template (never a
 * concrete path: ids stay out of series names as they stay out of logs) and intake outcomes
 * by error code, and the `GET /metrics` handler, optionally behind a bearer token.
 *
 * @module
 */
import type { Handler, MiddlewareHandler } from "hono";
import { presentsStaticToken } from "../auth/static_token.ts";
import { Unauthenticated } from "../errors/index.ts";
import { httpError } from "../http/errors.ts";
import { EXPOSITION_CONTENT_TYPE } from "./registry.ts";
import type { IntakeKind, ServiceMetrics } from "./service.ts";
import { routeTemplate } from "../http/route_template.ts";

/** The intake routes and what they are. */
function intakeKind(method: string, route: string): IntakeKind | null {
  if (method === "POST" && route === "/submissions") return "submit";
  if (method === "PUT" && route === "/submissions/:submissionId") return "amend";
  return null;
}

/** The error code a failed request answered with (as `errorResponse` chose it). */
function errorCode(error: unknown, status: number): string {
  return httpError(error)?.body.error.code ?? (status >= 500 ? "internal" : "bad_request");
}

/**
 * Counts each request into `metrics`.
 *
 * @example
 * ```ts
 * app.use(requestMetrics(metrics));
 * ```
 */
export function requestMetrics(metrics: ServiceMetrics): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    await next();
    const route = routeTemplate(c);
    const status = c.res.status;
    metrics.request(c.req.method, route, status, (performance.now() - start) / 1000);
    const kind = intakeKind(c.req.method, route);
    if (kind) metrics.intake(kind, status < 400 ? null : errorCode(c.error, status));
  };
}

/**
 * `GET /metrics`: the text exposition format. With a non-empty `token`, the request needs
 * `Authorization: Bearer <token>` (compared in constant time), else 401.
 *
 * @example
 * ```ts
 * app.get("/metrics", metricsHandler(metrics, config.metrics.token));
 * ```
 */
export function metricsHandler(metrics: ServiceMetrics, token: string): Handler {
  return async (c) => {
    if (token !== "") {
      if (!presentsStaticToken(c.req.header("authorization"), token)) {
        throw new Unauthenticated(
          "unauthorized",
          "GET /metrics needs Authorization: Bearer <metrics.token>",
          { challenge: 'Bearer realm="metrics"' },
        );
      }
    }
    return c.body(await metrics.render(), 200, { "Content-Type": EXPOSITION_CONTENT_TYPE });
  };
}
