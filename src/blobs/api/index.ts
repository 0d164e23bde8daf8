/**
 * The blob endpoints, one module per resource: upload slots (`slots.ts`), the pre-signed PUT
 * and GET of the bytes (`blobs.ts`), the owner's read URLs (`read_urls.ts`) and claims
 * (`claims.ts`). This module mounts them on one router, in the order the OpenAPI document
 * lists them.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type OwnerEnv, requireOwner, type TokenSource } from "../../auth/index.ts";
import { type Config, publicBaseUrl } from "../../config/index.ts";
import { jsonBody } from "../../http/body.ts";
import { newRouter } from "../../http/openapi.ts";
import { type Limiter, rateLimit } from "../../http/rate_limit.ts";
import { AddressRanges } from "../../ip/address.ts";
import type { Blobs } from "../service.ts";
import { mountBlobBytes } from "./blobs.ts";
import { mountClaims } from "./claims.ts";
import { mountReadUrls } from "./read_urls.ts";
import { mountSlots } from "./slots.ts";

/** What the blob routes need. */
export interface BlobDeps {
  /** Where owner tokens are checked. */
  identity: TokenSource;
  config: Config;
  blobs: Blobs;
  limiters: {
    uploadSlots: Limiter | null;
    uploads: Limiter | null;
    owner: Limiter | null;
  };
}

/**
 * Mounts the blob routes on a new router.
 *
 * @example
 * ```ts
 * app.route("/", blobRoutes({ identity, config, blobs, limiters }));
 * ```
 */
export function blobRoutes(deps: BlobDeps): OpenAPIHono<OwnerEnv> {
  const { identity, config, blobs } = deps;
  const app = newRouter<OwnerEnv>();
  const trust = new AddressRanges(config.server.trusted_proxies);
  const owner = [rateLimit(deps.limiters.owner, trust), requireOwner(identity)];
  const smallJson = jsonBody(() => 64 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 64 KiB",
  });
  // URLs point where the client reached us, unless base_url names the public address.
  const baseUrl = (c: Context) =>
    config.base_url ? publicBaseUrl(config) : new URL(c.req.url).origin;

  mountSlots(app, blobs, [rateLimit(deps.limiters.uploadSlots, trust), smallJson], baseUrl);
  // With a direct store (S3) senders and readers talk to the store: these routes do not exist.
  if (blobs.servesBytes) mountBlobBytes(app, blobs, rateLimit(deps.limiters.uploads, trust));
  mountReadUrls(app, blobs, owner, baseUrl);
  mountClaims(app, blobs, owner);
  return app;
}
