/**
 * Zod schemas of the blob endpoints (they validate requests and generate the OpenAPI
 * document).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { MAX_BLOB_URL_LIFETIME_SECONDS } from "../config/index.ts";
import { MAX_FILE_BYTES } from "../forms/file_ref.ts";
import { intQuery } from "../http/openapi.ts";
import { Sha256HexSchema, UserIdSchema } from "../http/ids.ts";
import { isSignableMime } from "./mime.ts";

// Cloned: a schema built before @hono/zod-openapi loaded has no `.openapi()` of its own.

/** A user id in a blob key. */
export const BlobUserIdSchema = UserIdSchema.clone();

/** A SHA-256 as 64 lowercase hex characters. */
export const BlobHashSchema = Sha256HexSchema.clone().openapi({
  example: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
});

/** Body of POST /submissions/upload-slot. */
export const UploadSlotRequestSchema = z.object({
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
export const UploadSlotSchema = z.object({
  url: z.string().openapi({ description: "Pre-signed PUT URL" }),
  key: z.string().openapi({ description: "Storage key {recipientUserId}/{hash}" }),
  expiresAtUtc: z.string().openapi({ description: "Expiry of the URL, ISO-8601 UTC" }),
}).openapi("UploadSlot");

const LIFETIME_RANGE =
  `Must be a whole number of seconds from 1 to ${MAX_BLOB_URL_LIFETIME_SECONDS}`;

/** The query of GET /submissions/blob/{recipientUserId}/{hash}. */
export const BlobReadQuerySchema = z.object({
  lifetimeSeconds: intQuery(1, MAX_BLOB_URL_LIFETIME_SECONDS, LIFETIME_RANGE).optional()
    .openapi({
      description: "How long the URL stays valid, in seconds, at most " +
        `${MAX_BLOB_URL_LIFETIME_SECONDS} (30 days). Default: blobs.read_url_lifetime_seconds. ` +
        "A vault asks for webhooks.blob_url_lifetime_seconds for the URLs of webhook bodies.",
      example: 604800,
    }),
});

/** What GET /submissions/blob/{recipientUserId}/{hash} answers. */
export const BlobReadSchema = z.object({
  url: z.string().openapi({ description: "Fresh pre-signed GET URL" }),
  expiresAtUtc: z.string(),
}).openapi("BlobRead");

/** What a successful pre-signed PUT answers. */
export const UploadReceiptSchema = z.object({
  key: z.string(),
  hash: z.string(),
  sizeBytes: z.number().int(),
  mime: z.string().nullable().openapi({ description: "The signed mime (null for none)" }),
}).openapi("UploadReceipt");

/** The query of a pre-signed URL (all checked against the signature). */
export const SignedQuerySchema = z.object({
  expires: z.string().optional().openapi({ description: "Expiry, seconds since the epoch" }),
  mime: z.string().optional().openapi({ description: "Signed media type (PUT)" }),
  max: z.string().optional().openapi({ description: "Signed size cap in bytes (PUT)" }),
  sig: z.string().optional().openapi({ description: "HMAC-SHA256 signature, base64url" }),
});

/** Who holds a claim: the vault names the record, `{formId}/{recordId}`. */
const ClaimantSchema = z.string().min(1).max(300).regex(
  /^[\x21-\x7e]+$/,
  "Printable ASCII, no spaces",
)
  .openapi({ description: "Who holds the claim, e.g. the record `{formId}/{recordId}`" });

const claimFields = {
  hashes: z.array(BlobHashSchema).min(1).max(1000),
  claimant: ClaimantSchema.default("owner"),
};

/** Body of POST /owner/blobs/claim. */
export const ClaimRequestSchema = z.object(claimFields).openapi("BlobClaimRequest");

/** Body of POST /owner/blobs/release. */
export const ReleaseRequestSchema = z.object(claimFields).openapi("BlobReleaseRequest");

/** What POST /owner/blobs/release answers. */
export const ReleaseResultSchema = z.object({
  unclaimed: z.array(z.string()).openapi({
    description: "Hashes no claimant holds any more (removed by the orphan sweep after the grace)",
  }),
}).openapi("BlobReleaseResult");

/** What POST /owner/blobs/claim answers. */
export const ClaimResultSchema = z.object({
  claimed: z.array(z.string()).openapi({ description: "Stored and now claimed" }),
  missing: z.array(z.string()).openapi({ description: "Not stored for this user" }),
}).openapi("BlobClaimResult");
