/**
 * `GET /admin/instance`: the instance's own view of itself, for `sealpost doctor` (src/doctor):
 * the base URL it writes into manifests and pre-signed URLs, its role, the backends it uses,
 * its data dir and the open-file limit it runs under. Admin token only; every role serves it.
 *
 * @module
 */
import { resolve } from "node:path";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type AdminEnv, requireAdmin, type TokenSource } from "../../auth/index.ts";
import type { Config } from "../../config/index.ts";
import { forAdmin, jsonContent as json, newRouter } from "../../http/openapi.ts";
import { openFileLimit } from "../../net/limits.ts";
import { VERSION } from "../../version.ts";

/** What `GET /admin/instance` answers. */
export const InstanceSchema = z.object({
  version: z.string(),
  role: z.enum(["all", "relay", "vault"]),
  baseUrl: z.string().openapi({ description: "The public base URL manifests carry" }),
  dataDir: z.string().openapi({ description: "Absolute path of the data dir on its machine" }),
  store: z.enum(["kv", "postgres"]),
  blobs: z.enum(["fs", "s3"]).nullable().openapi({ description: "Null for role vault" }),
  openFileLimit: z.number().int().openapi({
    description: "The soft open-file limit of the serving process (/proc/self/limits)",
  }),
}).openapi("Instance");

/** The body of `GET /admin/instance`. */
export type InstanceInfo = z.infer<typeof InstanceSchema>;

const getInstance = createRoute(forAdmin({
  method: "get",
  path: "/admin/instance",
  summary: "The instance's own view of itself: base URL, role, backends, limits",
  responses: {
    200: json(InstanceSchema, "The instance"),
  },
}));

/** What `GET /admin/instance` needs. */
export interface InstanceDeps {
  config: Config;
  /** Where admin tokens are checked. */
  tokens: TokenSource;
  /** The public base URL (known once listening when the port was 0). */
  baseUrl: () => string;
  /** The owner API's rate limit. */
  limit: MiddlewareHandler;
}

/**
 * Mounts `GET /admin/instance` on a new router.
 *
 * @example
 * ```ts
 * app.route("/", instanceRoutes({ config, tokens: identity, baseUrl: () => url, limit }));
 * ```
 */
export function instanceRoutes(
  { config, tokens, baseUrl, limit }: InstanceDeps,
): OpenAPIHono<AdminEnv> {
  const app = newRouter<AdminEnv>();
  app.openapi({ ...getInstance, middleware: [limit, requireAdmin(tokens)] }, (c) =>
    c.json({
      version: VERSION,
      role: config.server.role,
      baseUrl: baseUrl(),
      dataDir: resolve(config.data_dir),
      store: config.store.backend,
      blobs: config.server.role === "vault" ? null : config.blobs.backend,
      openFileLimit: openFileLimit(),
    }, 200));
  return app;
}
