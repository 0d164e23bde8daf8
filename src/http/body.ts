/**
 * Request bodies read with a hard size cap, decided while streaming.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { nestsDeeperThan } from "../forms/_common.ts";
import { Invalid, TooLarge } from "../errors/index.ts";
import { ApiError } from "./errors.ts";
import { decodeUtf8 } from "./utf8.ts";
import { concatBytes } from "../crypto/encoding.ts";

/**
 * Deepest nesting of arrays and objects a JSON request body may have. Deno KV's serializer
 * overflows its stack on values some thousands of levels deep, so deeper bodies are refused
 * before anything could try to store them.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Reads a request body into memory, stopping (413) as soon as it grows past `maxBytes`.
 * A declared Content-Length above the cap is refused before any byte is read.
 *
 * @example
 * ```ts
 * const bytes = await readBodyLimited(request, 1024, "payload_too_large", "Body too large");
 * ```
 */
export async function readBodyLimited(
  request: Request,
  maxBytes: number,
  code: string,
  message: string,
): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw new TooLarge(code, message);
  if (declared !== null) {
    // The framing ends the body at its declared length (src/net, as any HTTP server does):
    // read at once, without a stream (checked again for a Request built by hand).
    let bytes: Uint8Array;
    try {
      bytes = await request.bytes();
    } catch {
      throw new Invalid("body_unreadable", "The request body could not be read");
    }
    if (bytes.byteLength > maxBytes) throw new TooLarge(code, message);
    return bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      throw new Invalid("body_unreadable", "The request body could not be read");
    }
    if (step.done) break;
    size += step.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new TooLarge(code, message);
    }
    chunks.push(step.value);
  }
  return chunks.length === 1 ? chunks[0] : concatBytes(...chunks);
}

/**
 * Gives `c.req.text()` and `c.req.json()` `text` as the body, read no more. Hono keeps promises
 * in `bodyCache` (its type names what they resolve to).
 */
export function cacheBodyText(c: Context, text: string): void {
  (c.req.bodyCache as unknown as { text?: Promise<string> }).text = Promise.resolve(text);
}

/**
 * Middleware that caps the body at `maxBytes(c)` and parses it as JSON for the validator
 * that follows. A body over the cap is a 413 (decided while streaming); one that is not
 * JSON is a 400 `invalid_json`.
 */
export function jsonBody(
  maxBytes: (c: Context) => number,
  tooLarge: { code: string; message: string },
): MiddlewareHandler {
  return async (c, next) => {
    const bytes = await readBodyLimited(c.req.raw, maxBytes(c), tooLarge.code, tooLarge.message);
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
      throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
    }
    const text = decodeUtf8(bytes);
    if (text === null) throw new Invalid("invalid_json", "The request body is not valid UTF-8");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Invalid("invalid_json", "The request body is not valid JSON");
    }
    if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
      throw new Invalid(
        "invalid_json",
        `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`,
      );
    }
    // The validator that follows reads `c.req.json()`, which parses Hono's cached text (a
    // cached `json` alone is stringified and wrapped in a Response first, then parsed).
    cacheBodyText(c, text);
    await next();
  };
}
