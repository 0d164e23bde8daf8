/**
 * Pre-signed blob URLs: HMAC-SHA256 over the method, path, expiry, mime and size cap.
 *
 * The key is derived from the relay secret with a label (`HMAC(secret, label)`), so a URL
 * signature can never be confused with an edit token or any other use of the secret.
 * Verification is constant time (WebCrypto's `verify`).
 *
 * @module
 */
import { Forbidden } from "../errors/index.ts";

/** Label of the URL-signing sub-key. */
const KEY_LABEL = "sealpost/blob-url-key/v1";

/** First member of every signed string: a change of the format changes every signature. */
const FORMAT = "sealpost/blob-url/v1";

/** The query parameters of a pre-signed URL, as received. */
export interface SignedQuery {
  expires?: string;
  mime?: string;
  max?: string;
  sig?: string;
}

/** Everything a pre-signed URL binds. */
export interface SignedRequest {
  method: "PUT" | "GET";
  /** The route path, `/blobs/{userId}/{hash}`. */
  path: string;
  /** Expiry, whole seconds since the epoch. */
  expires: number;
  /** The media type the upload must carry; null when none was declared (and for GET). */
  mime: string | null;
  /** The most bytes the upload may carry; null for GET. */
  maxBytes: number | null;
}

/**
 * The exact bytes that are signed: a JSON array, so no two requests share a string.
 *
 * @example
 * ```ts
 * canonicalRequest({ method: "GET", path: "/b/u/h", expires: 1, mime: null, maxBytes: null });
 * // '["sealpost/blob-url/v1","GET","/blobs/u1/ab",1,null,null]'
 * ```
 */
export function canonicalRequest(request: SignedRequest): string {
  return JSON.stringify([
    FORMAT,
    request.method,
    request.path,
    request.expires,
    request.mime,
    request.maxBytes,
  ]);
}

const encoder = new TextEncoder();

/**
 * Signs and verifies pre-signed URL parameters with a key derived from the relay secret.
 *
 * @example
 * ```ts
 * const signer = await UrlSigner.fromRelaySecret(secret);
 * const sig = await signer.sign(request);
 * await signer.verify(request, sig); // true
 * ```
 */
export class UrlSigner {
  private constructor(private readonly key: CryptoKey) {}

  /** Derives the signing key from the relay secret. */
  static async fromRelaySecret(relaySecret: Uint8Array): Promise<UrlSigner> {
    const master = await crypto.subtle.importKey(
      "raw",
      relaySecret as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const derived = await crypto.subtle.sign("HMAC", master, encoder.encode(KEY_LABEL));
    const key = await crypto.subtle.importKey(
      "raw",
      derived,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    return new UrlSigner(key);
  }

  /** The signature of `request`, base64url without padding (43 characters). */
  async sign(request: SignedRequest): Promise<string> {
    const mac = await crypto.subtle.sign(
      "HMAC",
      this.key,
      encoder.encode(canonicalRequest(request)),
    );
    return new Uint8Array(mac).toBase64({ alphabet: "base64url", omitPadding: true });
  }

  /** Whether `signature` is the signature of `request` (constant time; false if malformed). */
  async verify(request: SignedRequest, signature: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(signature)) return false;
    const mac = Uint8Array.fromBase64(signature, { alphabet: "base64url" });
    // One encoding only: spare low bits in the last character would otherwise be ignored.
    if (mac.toBase64({ alphabet: "base64url", omitPadding: true }) !== signature) return false;
    return await crypto.subtle.verify(
      "HMAC",
      this.key,
      mac,
      encoder.encode(canonicalRequest(request)),
    );
  }
}

const CANONICAL_INT = /^(0|[1-9][0-9]{0,14})$/;

/**
 * Verifies the query of a pre-signed URL of `method` on `path`: 403 `signature_mismatch`
 * unless `signer` signed it, 403 `url_expired` once it expired (at `nowMs`). Returns what it
 * signed.
 *
 * @example
 * ```ts
 * const { mime, maxBytes } = await verifySignedQuery(signer, "PUT", path, query, Date.now());
 * ```
 */
export async function verifySignedQuery(
  signer: UrlSigner,
  method: "PUT" | "GET",
  path: string,
  query: SignedQuery,
  nowMs: number,
): Promise<{ mime: string | null; maxBytes: number | null }> {
  const upload = method === "PUT";
  const expires = query.expires !== undefined && CANONICAL_INT.test(query.expires)
    ? Number(query.expires)
    : null;
  const maxBytes = upload && query.max !== undefined && CANONICAL_INT.test(query.max)
    ? Number(query.max)
    : null;
  const request: SignedRequest = {
    method,
    path,
    expires: expires ?? -1,
    mime: upload ? query.mime ?? null : null,
    maxBytes,
  };
  const valid = expires !== null && (!upload || maxBytes !== null) &&
    query.sig !== undefined && await signer.verify(request, query.sig);
  if (!valid) {
    throw new Forbidden(
      "signature_mismatch",
      `The signature does not match this ${method} of ${path} and its parameters`,
    );
  }
  if (expires! * 1000 <= nowMs) {
    throw new Forbidden(
      "url_expired",
      `The URL expired at ${new Date(expires! * 1000).toISOString()}`,
    );
  }
  return { mime: request.mime, maxBytes };
}
