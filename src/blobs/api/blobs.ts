/**
 * Blob bytes over HTTP: the pre-signed `PUT /blobs/{userId}/{hash}` (an upload) and
 * `GET /blobs/{userId}/{hash}` (a read, with ranges and ETags); their OpenAPI definitions,
 * schemas and handlers. The key schemas here serve every blob route.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { OwnerEnv } from "../../auth/index.ts";
import { ApiError } from "../../http/errors.ts";
import { Sha256HexSchema, UserIdSchema } from "../../http/ids.ts";
import { errors, jsonContent as json } from "../../http/openapi.ts";
import { servedAs } from "../mime.ts";
import { parseRange } from "../range.ts";
import type { Blobs } from "../service.ts";

// Cloned: a schema built before @hono/zod-openapi loaded has no `.openapi()` of its own.

/** A user id in a blob key. */
export const BlobUserIdSchema = UserIdSchema.clone();

/** A SHA-256 as 64 lowercase hex characters. */
export const BlobHashSchema = Sha256HexSchema.clone().openapi({
  example: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
});

/** What a successful pre-signed PUT answers. */
const UploadReceiptSchema = z.object({
  key: z.string(),
  hash: z.string(),
  sizeBytes: z.number().int(),
  mime: z.string().nullable().openapi({ description: "The signed mime (null for none)" }),
}).openapi("UploadReceipt");

/** The query of a pre-signed URL (all checked against the signature). */
const SignedQuerySchema = z.object({
  expires: z.string().optional().openapi({ description: "Expiry, seconds since the epoch" }),
  mime: z.string().optional().openapi({ description: "Signed media type (PUT)" }),
  max: z.string().optional().openapi({ description: "Signed size cap in bytes (PUT)" }),
  sig: z.string().optional().openapi({ description: "HMAC-SHA256 signature, base64url" }),
});

const bytes = (description: string) => ({
  content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } },
  description,
});

const BlobParams = z.object({ userId: BlobUserIdSchema, hash: BlobHashSchema });

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
    ...errors({
      400: "Malformed path, empty body, hash_mismatch, or body_unreadable",
      403: "signature_mismatch, url_expired, or content_type_mismatch",
      413: "file_too_large (over the signed size or 50 MB) or quota_exceeded",
      429: "Rate limited; see Retry-After",
    }),
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
    ...errors({
      400: "Malformed path",
      403: "signature_mismatch or url_expired",
      404: "Not stored",
      416: "Range not satisfiable",
    }),
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

/**
 * Mounts the pre-signed PUT (behind `uploadLimit`) and GET on `app`. Only for a store the
 * bytes pass through: with a direct store (S3) senders and readers talk to the store.
 *
 * @example
 * ```ts
 * if (blobs.servesBytes) mountBlobBytes(app, blobs, rateLimit(limiters.uploads, trust));
 * ```
 */
export function mountBlobBytes(
  app: OpenAPIHono<OwnerEnv>,
  blobs: Blobs,
  uploadLimit: MiddlewareHandler,
): void {
  app.openapi(
    { ...putBlob, middleware: [uploadLimit] },
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
