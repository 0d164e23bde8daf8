/**
 * Claims over HTTP: `POST /owner/blobs/claim` and `/owner/blobs/release`, where the owner
 * keeps stored files from the orphan sweep and lets them go; their OpenAPI definitions,
 * schemas and handlers.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { OwnerEnv } from "../../auth/index.ts";
import { jsonBody } from "../../http/body.ts";
import { errors, forOwner, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import type { Blobs } from "../service.ts";
import { BlobHashSchema } from "./blobs.ts";

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
const ClaimRequestSchema = z.object(claimFields).openapi("BlobClaimRequest");

/** Body of POST /owner/blobs/release. */
const ReleaseRequestSchema = z.object(claimFields).openapi("BlobReleaseRequest");

/** What POST /owner/blobs/release answers. */
const ReleaseResultSchema = z.object({
  unclaimed: z.array(z.string()).openapi({
    description: "Hashes no claimant holds any more (removed by the orphan sweep after the grace)",
  }),
}).openapi("BlobReleaseResult");

/** What POST /owner/blobs/claim answers. */
const ClaimResultSchema = z.object({
  claimed: z.array(z.string()).openapi({ description: "Stored and now claimed" }),
  missing: z.array(z.string()).openapi({ description: "Not stored for this user" }),
}).openapi("BlobClaimResult");

const postClaim = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/blobs/claim",
  summary: "Claim stored files so the orphan sweep keeps them (idempotent)",
  request: { body: requiredJson(ClaimRequestSchema, "Hashes of the user's files") },
  responses: {
    200: json(ClaimResultSchema, "Which hashes are claimed and which are not stored"),
    ...errors({ 400: "Malformed", 429: "Rate limited" }),
  },
}));

const postRelease = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/blobs/release",
  summary: "Release a claimant's claims; files no one claims go to the orphan sweep",
  request: {
    body: requiredJson(ReleaseRequestSchema, "Hashes of the user's files"),
  },
  responses: {
    200: json(ReleaseResultSchema, "Which hashes are unclaimed now"),
    ...errors({ 400: "Malformed", 429: "Rate limited" }),
  },
}));

/**
 * Mounts the claim and release routes on `app`, behind `owner` (the owner's rate limit and
 * token).
 *
 * @example
 * ```ts
 * mountClaims(app, blobs, [ownerLimit, ownerAuth]);
 * ```
 */
export function mountClaims(
  app: OpenAPIHono<OwnerEnv>,
  blobs: Blobs,
  owner: MiddlewareHandler[],
): void {
  // 1000 hashes as JSON take about 67 KB.
  const claimJson = jsonBody(() => 128 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 128 KiB",
  });
  app.openapi({ ...postClaim, middleware: [...owner, claimJson] }, async (c) => {
    const { hashes, claimant } = c.req.valid("json");
    return c.json(await blobs.claim(c.var.owner.userId, hashes, claimant), 200);
  });
  app.openapi({ ...postRelease, middleware: [...owner, claimJson] }, async (c) => {
    const { hashes, claimant } = c.req.valid("json");
    return c.json(await blobs.release(c.var.owner.userId, hashes, claimant), 200);
  });
}
