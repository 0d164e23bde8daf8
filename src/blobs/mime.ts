/**
 * The media-type rules of pre-signed uploads: which types may be signed, whether a PUT's
 * Content-Type matches the signed one, and how a stored blob is served.
 *
 * @module
 */
import { isMime, mimeEssence } from "../forms/file_ref.ts";

/** A media type reduced for comparison: lowercase type and parameter names, no spaces. */
function normalizeMime(value: string): string {
  const [essence, ...params] = value.split(";");
  return [
    mimeEssence(essence),
    ...params.map((p) => p.trim()).filter(Boolean).map((p) => {
      const eq = p.indexOf("=");
      return eq < 0
        ? p.toLowerCase()
        : `${p.slice(0, eq).trim().toLowerCase()}=${p.slice(eq + 1).trim()}`;
    }),
  ].join(";");
}

/**
 * The Content-Type rule of a pre-signed PUT. With a signed mime, the request's Content-Type
 * must be the same media type (type, subtype and parameter names compared without regard to
 * case or spaces; parameter values exactly). Without one, the request may send no
 * Content-Type or `application/octet-stream`, nothing else: a type the slot did not declare
 * is never stored, so an uploader cannot pick how the bytes are served later.
 */
export function contentTypeMatches(sent: string | null, signed: string | null): boolean {
  if (signed === null) return sent === null || normalizeMime(sent) === "application/octet-stream";
  return sent !== null && normalizeMime(sent) === normalizeMime(signed);
}

/**
 * Whether `value` is a media type that may be signed and later sent as a header.
 *
 * @example
 * ```ts
 * isSignableMime("text/plain; charset=utf-8"); // true
 * isSignableMime('text/plain; x="a\nb"'); // false: not printable ASCII
 * ```
 */
export function isSignableMime(value: string): boolean {
  return isMime(value) && /^[\x20-\x7e]+$/.test(value);
}

/** Media types an owner's browser may show inline; everything else downloads. */
const INLINE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]);

/**
 * How a blob of recorded `mime` is served: its Content-Type (`application/octet-stream` for
 * none), and a Content-Disposition showing the image types inline and downloading the rest,
 * named after the hash.
 *
 * @example
 * ```ts
 * servedAs("image/png", hash); // { contentType: "image/png", contentDisposition: 'inline; filename="…"' }
 * ```
 */
export function servedAs(
  mime: string | null,
  hash: string,
): { contentType: string; contentDisposition: string } {
  const contentType = mime ?? "application/octet-stream";
  const disposition = INLINE_TYPES.has(mimeEssence(contentType)) ? "inline" : "attachment";
  return { contentType, contentDisposition: `${disposition}; filename="${hash}"` };
}
