/**
 * The Content-Security-Policy of the form page: scripts and styles from the page's own origin
 * only (or, in the static export, only the inline ones with these exact hashes), no inline
 * script, no `eval`, network access to the relay alone (and to the relay's S3 blob store, where
 * files are uploaded directly), images from the page (previews are
 * `blob:` URLs), no form posts, no `<base>`.
 *
 * @module
 */

/** Options of {@linkcode pageCsp}. */
export interface PageCspOptions {
  /** The relay the page talks to, when it is not the page's own origin. */
  relayUrl?: string;
  /** The S3-compatible store uploads go to directly (`blobs.backend = "s3"`). */
  blobStoreUrl?: string;
  /** Sites that may frame the page (null or absent: any). */
  frameAncestors?: string[] | null;
  /** Static export: the `sha256-…` of the inline script and style instead of `'self'`. */
  inline?: { script: string; style: string };
}

/**
 * The policy, as a header value (or the `content` of a `<meta http-equiv>`, which ignores
 * `frame-ancestors`).
 *
 * @example
 * ```ts
 * import { pageCsp } from "./csp.ts";
 * pageCsp({ relayUrl: "https://forms.example" });
 * ```
 */
export function pageCsp(options: PageCspOptions): string {
  const connect = ["'self'"];
  if (options.relayUrl) connect.push(new URL(options.relayUrl).origin);
  if (options.blobStoreUrl) connect.push(new URL(options.blobStoreUrl).origin);
  const script = options.inline ? `'${options.inline.script}'` : "'self'";
  const style = options.inline ? `'${options.inline.style}'` : "'self'";
  const ancestors = options.frameAncestors?.length ? options.frameAncestors.join(" ") : "*";
  return [
    "default-src 'none'",
    `script-src ${script}`,
    `style-src ${style}`,
    "img-src 'self' blob: data:",
    `connect-src ${connect.join(" ")}`,
    "base-uri 'none'",
    "form-action 'none'",
    ...(options.inline ? [] : [`frame-ancestors ${ancestors}`]),
  ].join("; ");
}
