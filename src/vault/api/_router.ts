/**
 * What the resources of the vault's owner API (`/vault`) share: the router they add their
 * routes to (built in `index.ts`), the spec of their routes (the OpenAPI tag and security), and
 * the id parameters of their descriptions.
 *
 * @module
 */
import { type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { PersonEnv } from "../../auth/index.ts";
import * as ids from "../../http/ids.ts";
import { ownerSecurity } from "../../http/openapi.ts";
import type { Vault } from "../service.ts";

/** The owner API a resource adds its routes to. */
export interface VaultApi {
  /** The router: every `/vault/*` route on it needs a person's token. */
  app: OpenAPIHono<PersonEnv>;
  vault: Vault;
  /** The middleware of routes that take a JSON body (at most 1 MiB). */
  body: MiddlewareHandler[];
}

/**
 * The spec of a route of the vault's owner API, for `createRoute`: the tag `vault` and the
 * owner security ahead of the summary (the order of the vault's operations in the OpenAPI
 * document).
 *
 * @example
 * ```ts
 * const listForms = createRoute(forVault({
 *   method: "get",
 *   path: "/vault/forms",
 *   summary: "The user's forms",
 *   responses: { 200: jsonContent(itemsOf(FormSchema), "Forms") },
 * }));
 * ```
 */
export function forVault<
  P extends string,
  R extends Omit<RouteConfig, "path" | "tags" | "security"> & { path: P },
>(route: R) {
  return { tags: ["vault"], security: ownerSecurity, ...route };
}

/** `FormIdParam` of the vault's owner API (OpenAPI). */
export const FormIdParam = ids.FormIdSchema;
/** `RecordIdParam` of the vault's owner API (OpenAPI). */
export const RecordIdParam = ids.RecordIdSchema;
/** The path parameters of a form's routes (`/vault/forms/{formId}…`). */
export const FormParams = z.object({ formId: FormIdParam });
