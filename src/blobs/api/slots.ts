/**
 * Upload slots over HTTP: `POST /submissions/upload-slot`, where an anonymous sender gets a
 * short-lived pre-signed PUT URL for a file; its OpenAPI definition, schemas and handler.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { OwnerEnv } from "../../auth/index.ts";
import { MAX_FILE_BYTES } from "../../forms/file_ref.ts";
import { errors, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import { isSignableMime } from "../mime.ts";
import type { Blobs } from "../service.ts";
import { BlobHashSchema, BlobUserIdSchema } from "./blobs.ts";

/** Body of POST /submissions/upload-slot. */
const UploadSlotRequestSchema = z.object({
  recipientUserId: BlobUserIdSchema.openapi({
    description: "The form owner's user id (manifest recipient.userId)",
  }),
  hash: BlobHashSchema.openapi({ description: "SHA-256 of the file bytes" }),
  mime: z.string().refine(isSignableMime, "Must be a media type such as image/png")
    .nullable().optional().openapi({
      description: "Bound into the PUT signature; the PUT must send the same Content-Type. " +
        "Without it the PUT sends no Content-Type or application/octet-stream.",
    }),
  sizeBytes: z.number().int(`Must be a whole number of bytes`)
    .min(1, `Must be 1 to ${MAX_FILE_BYTES}`)
    .max(MAX_FILE_BYTES, `Must be 1 to ${MAX_FILE_BYTES}`)
    .nullable().optional().openapi({
      description: "The most bytes the PUT may carry (default and cap: 52428800)",
    }),
}).openapi("UploadSlotRequest");

/** What POST /submissions/upload-slot answers. */
const UploadSlotSchema = z.object({
  url: z.string().openapi({ description: "Pre-signed PUT URL" }),
  key: z.string().openapi({ description: "Storage key {recipientUserId}/{hash}" }),
  expiresAtUtc: z.string().openapi({ description: "Expiry of the URL, ISO-8601 UTC" }),
}).openapi("UploadSlot");

const postSlot = createRoute({
  method: "post",
  path: "/submissions/upload-slot",
  tags: ["uploads"],
  summary: "Get a short-lived pre-signed PUT URL for a file",
  description: "Anonymous: the pair (recipientUserId, hash) is the capability.",
  request: { body: requiredJson(UploadSlotRequestSchema, "What will be uploaded") },
  responses: {
    200: json(UploadSlotSchema, "PUT the bytes to url before expiresAtUtc"),
    ...errors({
      400: "recipientUserId or hash missing, malformed or unknown; sizeBytes out of range",
      413: "quota_exceeded: the recipient's storage is full",
      415: "Not JSON",
      429: "Rate limited; see Retry-After",
    }),
  },
});

/**
 * Mounts the upload slot route on `app`, behind `middleware` (its rate limit and body cap);
 * the URL points at `baseUrl(c)`.
 *
 * @example
 * ```ts
 * mountSlots(app, blobs, [slotLimit, smallJson], baseUrl);
 * ```
 */
export function mountSlots(
  app: OpenAPIHono<OwnerEnv>,
  blobs: Blobs,
  middleware: MiddlewareHandler[],
  baseUrl: (c: Context) => string,
): void {
  app.openapi(
    { ...postSlot, middleware },
    async (c) => c.json(await blobs.uploadSlot(c.req.valid("json"), baseUrl(c)), 200),
  );
}
