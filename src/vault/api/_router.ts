/**
 * What the resources of the vault's owner API (`/vault`) share: the router they add their
 * routes to (built in `index.ts`), and the OpenAPI tag, security and id parameters of their
 * descriptions.
 *
 * @module
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { OwnerEnv } from "../../auth/index.ts";
import * as ids from "../../http/ids.ts";
import type { Vault } from "../service.ts";

/** The owner API a resource adds its routes to. */
export interface VaultApi {
  /** The router: every `/vault/*` route on it needs an owner token. */
  app: OpenAPIHono<OwnerEnv>;
  vault: Vault;
  /** The middleware of routes that take a JSON body (at most 1 MiB). */
  body: MiddlewareHandler[];
}

/** `security` of the vault's owner API (OpenAPI). */
export const security = [{ ownerToken: [] }];
/** `tags` of the vault's owner API (OpenAPI). */
export const tags = ["vault"];

/** `FormIdParam` of the vault's owner API (OpenAPI). */
export const FormIdParam = ids.FormIdSchema;
/** `RecordIdParam` of the vault's owner API (OpenAPI). */
export const RecordIdParam = ids.RecordIdSchema;
/** The path parameters of a form's routes (`/vault/forms/{formId}…`). */
export const FormParams = z.object({ formId: FormIdParam });
