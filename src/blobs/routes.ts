/**
 * The blob endpoints: upload slots, the pre-signed PUT and GET, the owner's read URLs and
 * claims.
 *
 * @module
 */
import { AddressRanges } from "../ip/address.ts";
import { errorContent as error, jsonContent as json, newRouter } from "../http/openapi.ts";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type Config, publicBaseUrl } from "../config/index.ts";
import { jsonBody } from "../http/body.ts";
import { ApiError } from "../http/errors.ts";
import { NotFound } from "../errors/index.ts";
import { type Limiter, rateLimit } from "../http/rate_limit.ts";
import { assertOwns, type OwnerEnv, requireOwner, type TokenSource } from "../auth/index.ts";
import { servedAs } from "./mime.ts";
import { parseRange } from "./range.ts";
import {
  BlobHashSchema,
  BlobReadQuerySchema,
  BlobReadSchema,
  BlobUserIdSchema,
  ClaimRequestSchema,
  ClaimResultSchema,
  ReleaseRequestSchema,
  ReleaseResultSchema,
  SignedQuerySchema,
  UploadReceiptSchema,
  UploadSlotRequestSchema,
  UploadSlotSchema,
} from "./schemas.ts";
import type { Blobs } from "./service.ts";

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

const bytes = (description: string) => ({
  content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } },
  description,
});

const BlobParams = z.object({ userId: BlobUserIdSchema, hash: BlobHashSchema });

const postSlot = createRoute({
  method: "post",
  path: "/submissions/upload-slot",
  tags: ["uploads"],
  summary: "Get a short-lived pre-signed PUT URL for a file",
  description: "Anonymous: the pair (recipientUserId, hash) is the capability.",
  request: { body: { ...json(UploadSlotRequestSchema, "What will be uploaded"), required: true } },
  responses: {
    200: json(UploadSlotSchema, "PUT the bytes to url before expiresAtUtc"),
    400: error("recipientUserId or hash missing, malformed or unknown; sizeBytes out of range"),
    413: error("quota_exceeded: the recipient's storage is full"),
    415: error("Not JSON"),
    429: error("Rate limited; see Retry-After"),
  },
});

const putBlob = createRoute({
  method: "put",
  path: "/blobs/{userId}/{hash}",
  tags: ["uploads"],
  summary: "Upload file bytes to a pre-signed URL",
  description: "The URL's signature authorizes the request. Content-Type must equal the " +
    "signed mime (none or application/octet-stream when none was signed).",
  request: {
    params: BlobParams,
    query: SignedQuerySchema,
    body: { ...bytes("The file bytes"), required: true },
  },
  responses: {
    201: json(
      UploadReceiptSchema,
      "Stored: the same status and body whether the bytes are new or were already stored, " +
        "so an uploader cannot tell whether anyone uploaded them before",
    ),
    400: error("Malformed path, empty body, hash_mismatch, or body_unreadable"),
    403: error("signature_mismatch, url_expired, or content_type_mismatch"),
    413: error("file_too_large (over the signed size or 50 MB) or quota_exceeded"),
    429: error("Rate limited; see Retry-After"),
  },
});

const getBlob = createRoute({
  method: "get",
  path: "/blobs/{userId}/{hash}",
  tags: ["uploads"],
  summary: "Read file bytes from a pre-signed URL",
  description: "Streams the bytes with the stored mime, ETag, single-range Range support, " +
    "nosniff and a sandboxing Content-Security-Policy.",
  request: { params: BlobParams, query: SignedQuerySchema },
  responses: {
    200: bytes("The file"),
    206: bytes("The requested range"),
    304: { description: "If-None-Match matched the ETag" },
    400: error("Malformed path"),
    403: error("signature_mismatch or url_expired"),
    404: error("Not stored"),
    416: error("Range not satisfiable"),
  },
});

const getReadUrl = createRoute({
  method: "get",
  path: "/submissions/blob/{recipientUserId}/{hash}",
  tags: ["uploads"],
  summary: "A fresh pre-signed GET URL of a stored file",
  security: [{ ownerToken: [] }],
  request: {
    params: z.object({ recipientUserId: BlobUserIdSchema, hash: BlobHashSchema }),
    query: BlobReadQuerySchema,
  },
  responses: {
    200: json(BlobReadSchema, "GET url before expiresAtUtc"),
    400: error("Malformed path, or lifetimeSeconds out of range"),
    401: error("No owner token"),
    404: error("Not stored, or another user's file (the same answer)"),
    429: error("Rate limited"),
  },
});

const postClaim = createRoute({
  method: "post",
  path: "/owner/blobs/claim",
  tags: ["owner"],
  summary: "Claim stored files so the orphan sweep keeps them (idempotent)",
  security: [{ ownerToken: [] }],
  request: { body: { ...json(ClaimRequestSchema, "Hashes of the user's files"), required: true } },
  responses: {
    200: json(ClaimResultSchema, "Which hashes are claimed and which are not stored"),
    400: error("Malformed"),
    401: error("No owner token"),
    429: error("Rate limited"),
  },
});

const postRelease = createRoute({
  method: "post",
  path: "/owner/blobs/release",
  tags: ["owner"],
  summary: "Release a claimant's claims; files no one claims go to the orphan sweep",
  security: [{ ownerToken: [] }],
  request: {
    body: { ...json(ReleaseRequestSchema, "Hashes of the user's files"), required: true },
  },
  responses: {
    200: json(ReleaseResultSchema, "Which hashes are unclaimed now"),
    400: error("Malformed"),
    401: error("No owner token"),
    429: error("Rate limited"),
  },
});

/** Headers that keep uploaded content from ever running on the service's origin. */
function servingHeaders(
  hash: string,
  mime: string | null,
  expires: number,
): Record<string, string> {
  const served = servedAs(mime, hash);
  return {
    "Content-Type": served.contentType,
    "ETag": `"${hash}"`,
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Content-Disposition": served.contentDisposition,
    "Referrer-Policy": "no-referrer",
    "Cache-Control": `private, max-age=${Math.max(0, expires - Math.floor(Date.now() / 1000))}`,
  };
}

function etagMatches(header: string | undefined, hash: string): boolean {
  if (header === undefined) return false;
  return header.trim() === "*" ||
    header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === `"${hash}"`);
}

/** Mounts the blob routes on a new router. */
export function blobRoutes(deps: BlobDeps): OpenAPIHono<OwnerEnv> {
  const { identity, config, blobs } = deps;
  const app = newRouter<OwnerEnv>();
  const trust = new AddressRanges(config.server.trusted_proxies);
  const ownerLimit = rateLimit(deps.limiters.owner, trust);
  const ownerAuth = requireOwner(identity);
  const smallJson = jsonBody(() => 64 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 64 KiB",
  });
  // URLs point where the client reached us, unless base_url names the public address.
  const baseUrl = (c: Context) =>
    config.base_url ? publicBaseUrl(config) : new URL(c.req.url).origin;

  app.openapi(
    { ...postSlot, middleware: [rateLimit(deps.limiters.uploadSlots, trust), smallJson] },
    async (c) => c.json(await blobs.uploadSlot(c.req.valid("json"), baseUrl(c)), 200),
  );

  // With a direct store (S3) senders and readers talk to the store: these routes do not exist.
  if (blobs.servesBytes) {
    app.openapi(
      { ...putBlob, middleware: [rateLimit(deps.limiters.uploads, trust)] },
      async (c) => {
        const { created: _, ...receipt } = await blobs.acceptUpload(
          c.req.valid("param"),
          c.req.valid("query"),
          {
            contentType: c.req.header("content-type") ?? null,
            contentLength: c.req.header("content-length") ?? null,
            body: c.req.raw.body,
          },
        );
        return c.json(receipt, 201);
      },
    );

    app.openapi(getBlob, async (c) => {
      const key = c.req.valid("param");
      const query = c.req.valid("query");
      const meta = await blobs.authorizeRead(key, query);
      const headers = servingHeaders(key.hash, meta.mime, Number(query.expires));
      if (etagMatches(c.req.header("if-none-match"), key.hash)) return c.body(null, 304, headers);
      const ifRange = c.req.header("if-range");
      const wanted = ifRange === undefined || ifRange.trim() === `"${key.hash}"`
        ? parseRange(c.req.header("range"), meta.sizeBytes)
        : { kind: "full" as const };
      if (wanted.kind === "unsatisfiable") {
        throw new ApiError(
          416,
          "range_not_satisfiable",
          `Range "${c.req.header("range")}" is outside the ${meta.sizeBytes} bytes`,
          undefined,
          { "Content-Range": `bytes */${meta.sizeBytes}` },
        );
      }
      const range = wanted.kind === "partial" ? wanted.range : undefined;
      if (range) headers["Content-Range"] = `bytes ${range.start}-${range.end}/${meta.sizeBytes}`;
      headers["Content-Length"] = String(range ? range.end - range.start + 1 : meta.sizeBytes);
      const status = range ? 206 : 200;
      // HEAD is answered by this handler too: no body, so no file is opened.
      if (c.req.method === "HEAD") return c.body(null, status, headers);
      return c.body(await blobs.read(key, range), status, headers);
    });
  }

  app.openapi({ ...getReadUrl, middleware: [ownerLimit, ownerAuth] }, async (c) => {
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

  // 1000 hashes as JSON take about 67 KB.
  const claimJson = jsonBody(() => 128 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 128 KiB",
  });
  app.openapi({ ...postClaim, middleware: [ownerLimit, ownerAuth, claimJson] }, async (c) => {
    const { hashes, claimant } = c.req.valid("json");
    return c.json(await blobs.claim(c.var.owner.userId, hashes, claimant), 200);
  });
  app.openapi({ ...postRelease, middleware: [ownerLimit, ownerAuth, claimJson] }, async (c) => {
    const { hashes, claimant } = c.req.valid("json");
    return c.json(await blobs.release(c.var.owner.userId, hashes, claimant), 200);
  });

  return app;
}
