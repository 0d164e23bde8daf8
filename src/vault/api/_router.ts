/**
 * What the resources of the vault's owner API (`/vault`) share: the router they add their
 * routes to (built in `index.ts`), their route declaration (the OpenAPI tag and security), and
 * the id parameters of their descriptions.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { OwnerEnv } from "../../auth/index.ts";
import * as ids from "../../http/ids.ts";
import { ownerSecurity } from "../../http/openapi.ts";
import type { Vault } from "../service.ts";

/** The owner API a resource adds its routes to. */
export interface VaultApi {
  /** The router: every `/vault/*` route on it needs an owner token. */
  app: OpenAPIHono<OwnerEnv>;
  vault: Vault;
  /** The middleware of routes that take a JSON body (at most 1 MiB). */
  body: MiddlewareHandler[];
}

/**
 * A route of the vault's owner API: `createRoute` under the tag `vault`, with the owner
 * security ahead of the summary (the order of the vault's operations in the OpenAPI document).
 *
 * @example
 * ```ts
 * const listForms = vaultRoute({
 *   method: "get",
 *   path: "/vault/forms",
 *   summary: "The user's forms",
 *   responses: { 200: jsonContent(FormListSchema, "Forms") },
 * });
 * ```
 */
export function vaultRoute<
  P extends string,
  R extends Omit<RouteConfig, "path" | "tags" | "security"> & { path: P },
>(route: R) {
  return createRoute({ tags: ["vault"], security: ownerSecurity, ...route });
}

/** `FormIdParam` of the vault's owner API (OpenAPI). */
export const FormIdParam = ids.FormIdSchema;
/** `RecordIdParam` of the vault's owner API (OpenAPI). */
export const RecordIdParam = ids.RecordIdSchema;
/** The path parameters of a form's routes (`/vault/forms/{formId}…`). */
export const FormParams = z.object({ formId: FormIdParam });
