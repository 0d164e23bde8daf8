/**
 * Read URLs over HTTP: `GET /submissions/blob/{recipientUserId}/{hash}`, where the owner gets
 * a fresh pre-signed GET URL of one of their stored files; its OpenAPI definition, schemas and
 * handler.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { assertOwns, type OwnerEnv } from "../../auth/index.ts";
import { MAX_BLOB_URL_LIFETIME_SECONDS } from "../../config/index.ts";
import { NotFound } from "../../errors/index.ts";
import { errors, forOwner, intQuery, jsonContent as json } from "../../http/openapi.ts";
import type { Blobs } from "../service.ts";
import { BlobHashSchema, BlobUserIdSchema } from "./blobs.ts";

const LIFETIME_RANGE =
  `Must be a whole number of seconds from 1 to ${MAX_BLOB_URL_LIFETIME_SECONDS}`;

/** The query of GET /submissions/blob/{recipientUserId}/{hash}. */
const BlobReadQuerySchema = z.object({
  lifetimeSeconds: intQuery(1, MAX_BLOB_URL_LIFETIME_SECONDS, LIFETIME_RANGE).optional()
    .openapi({
      description: "How long the URL stays valid, in seconds, at most " +
        `${MAX_BLOB_URL_LIFETIME_SECONDS} (30 days). Default: blobs.read_url_lifetime_seconds. ` +
        "A vault asks for webhooks.blob_url_lifetime_seconds for the URLs of webhook bodies.",
      example: 604800,
    }),
});

/** What GET /submissions/blob/{recipientUserId}/{hash} answers. */
const BlobReadSchema = z.object({
  url: z.string().openapi({ description: "Fresh pre-signed GET URL" }),
  expiresAtUtc: z.string(),
}).openapi("BlobRead");

const getReadUrl = createRoute(forOwner("uploads", {
  method: "get",
  path: "/submissions/blob/{recipientUserId}/{hash}",
  summary: "A fresh pre-signed GET URL of a stored file",
  request: {
    params: z.object({ recipientUserId: BlobUserIdSchema, hash: BlobHashSchema }),
    query: BlobReadQuerySchema,
  },
  responses: {
    200: json(BlobReadSchema, "GET url before expiresAtUtc"),
    ...errors({
      400: "Malformed path, or lifetimeSeconds out of range",
      404: "Not stored, or another user's file (the same answer)",
      429: "Rate limited",
    }),
  },
}));

/**
 * Mounts the read URL route on `app`, behind `owner` (the owner's rate limit and token); the
 * URL points at `baseUrl(c)`.
 *
 * @example
 * ```ts
 * mountReadUrls(app, blobs, [ownerLimit, ownerAuth], baseUrl);
 * ```
 */
export function mountReadUrls(
  app: OpenAPIHono<OwnerEnv>,
  blobs: Blobs,
  owner: MiddlewareHandler[],
  baseUrl: (c: Context) => string,
): void {
  app.openapi({ ...getReadUrl, middleware: owner }, async (c) => {
    const { recipientUserId, hash } = c.req.valid("param");
    const { lifetimeSeconds } = c.req.valid("query");
    // Another user's file answers exactly like a missing one (no existence oracle).
    const notFound = () => new NotFound("blob_not_found", `No blob ${recipientUserId}/${hash}`);
    assertOwns(c.var.owner.userId, recipientUserId, notFound);
    const read = await blobs.readUrl({ userId: recipientUserId, hash }, {
      lifetimeSeconds,
      baseUrl: baseUrl(c),
    });
    if (!read) throw notFound();
    return c.json(read, 200);
  });
}
