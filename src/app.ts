/**
 * The Hono application: middleware, every feature's routes, the OpenAPI document, and the
 * one error handler.
 *
 * @module
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Config } from "./config/index.ts";
import { errorResponse, notFoundResponse } from "./http/errors.ts";
import { requestLog } from "./http/logger.ts";
import { TokenBuckets } from "./http/rate_limit.ts";
import { type RelayDeps, relayRoutes } from "./relay/routes.ts";
import type { FormDirectory } from "./relay/manifests.ts";
import type { Intake } from "./relay/submissions.ts";
import { VERSION } from "./version.ts";

/** Everything the application needs from the process. */
export interface AppDeps {
  kv: Deno.Kv;
  config: Config;
  intake: Intake;
  forms: FormDirectory;
  /** Where request log lines go (when `server.request_log` is on). */
  log: (line: string) => void;
}

/** Builds the application. */
export function buildApp(deps: AppDeps): OpenAPIHono {
  const { config } = deps;
  const limiter = (rule: Config["rate_limits"]["submissions"]) =>
    config.rate_limits.enabled ? new TokenBuckets(rule) : null;
  const relayDeps: RelayDeps = {
    ...deps,
    limiters: {
      submissions: limiter(config.rate_limits.submissions),
      owner: limiter(config.rate_limits.owner),
    },
  };
  const app = new OpenAPIHono();
  if (config.server.request_log) app.use(requestLog(deps.log));
  app.get("/healthz", (c) => c.json({ status: "ok", version: VERSION }));
  app.route("/", relayRoutes(relayDeps));
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Sealpost",
      version: VERSION,
      description: "End-to-end encrypted form backend. Errors: " +
        '`{"error": {"code", "message", "field"?}}`.',
    },
  });
  app.onError(errorResponse);
  app.notFound(notFoundResponse);
  return app;
}
