/**
 * Fetching and verifying form manifests. A manifest is trusted only when its Ed25519
 * signature verifies under the manifest key pinned by fingerprint: the recipient key inside it
 * decides who can read the submission, so an unverifiable manifest is an error, never a
 * warning.
 *
 * @module
 */
import { CryptoError } from "../crypto/errors.ts";
import { verifyManifestSignature } from "../crypto/signing.ts";
import { type Manifest, ManifestSchema } from "../forms/manifest.ts";
import { ManifestError } from "./errors.ts";
import { type HttpOptions, joinUrl, readJson, request } from "./http.ts";

/** Relay used to resolve a bare form id when none is given. */
export const DEFAULT_RELAY_URL = "http://127.0.0.1:8080";

/**
 * The URL of a form's manifest: `source` itself when it is an http(s) URL, else
 * `{relayUrl}/forms/{formId}/manifest`.
 *
 * @example
 * ```ts
 * import { manifestUrl } from "./manifest.ts";
 * manifestUrl("contact", "https://forms.example.com");
 * // "https://forms.example.com/forms/contact/manifest"
 * ```
 */
export function manifestUrl(source: string, relayUrl: string = DEFAULT_RELAY_URL): string {
  if (/^https?:\/\//i.test(source)) return source;
  return joinUrl(relayUrl, `/forms/${encodeURIComponent(source)}/manifest`);
}

/**
 * Verifies a manifest as received (parsed JSON, before any other processing) against the
 * pinned manifest-key fingerprint, then validates its shape.
 *
 * @throws {ManifestError} `manifest_unverified` (unsigned, other key, altered) or
 * `invalid_manifest` (shape), with `field` naming the member at fault.
 * @example
 * ```ts
 * import { verifyManifest } from "./manifest.ts";
 * const manifest = verifyManifest(JSON.parse(text), "9f86d081884c7d65...");
 * ```
 */
export function verifyManifest(json: unknown, pin: string): Manifest {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new ManifestError("invalid_manifest", "Manifest must be a JSON object");
  }
  try {
    verifyManifestSignature(json, pin);
  } catch (e) {
    if (!(e instanceof CryptoError)) throw e;
    const code = e.code === "invalid_input" ? "invalid_pin" : "manifest_unverified";
    throw new ManifestError(code, e.message, { cause: e, field: "signature" });
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join(".");
    throw new ManifestError(
      "invalid_manifest",
      `Manifest member ${field || "(root)"} is invalid: ${issue.message}`,
      { field: field || undefined },
    );
  }
  return parsed.data;
}

/** Options of {@linkcode fetchManifest}. */
export interface FetchManifestOptions extends HttpOptions {
  /** Fingerprint of the manifest key (64 hex characters of SHA-256 of the raw key). */
  pin: string;
  /** Relay to resolve a bare form id against (default {@linkcode DEFAULT_RELAY_URL}). */
  relayUrl?: string;
}

/**
 * Fetches a manifest by form id or URL and verifies it (see {@linkcode verifyManifest}).
 *
 * @throws {ManifestError} when it cannot be trusted or is malformed.
 * @throws {RelayError} / {NetworkError} when it cannot be fetched.
 * @example
 * ```ts
 * import { fetchManifest } from "./manifest.ts";
 * const manifest = await fetchManifest("contact", {
 *   relayUrl: "https://forms.example.com",
 *   pin: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
 * });
 * ```
 */
export async function fetchManifest(
  source: string,
  options: FetchManifestOptions,
): Promise<Manifest> {
  const url = manifestUrl(source, options.relayUrl);
  const what = `Fetching the manifest ${url}`;
  const json = await request(
    url,
    { method: "GET", headers: { accept: "application/json" } },
    what,
    options,
    (response) => readJson(response, what),
  );
  return verifyManifest(json, options.pin);
}
