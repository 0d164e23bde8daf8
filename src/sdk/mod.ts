/**
 * Sealpost sender SDK: everything a sender does before and including the POST, in Deno,
 * Node 20 and browsers.
 *
 * 1. {@linkcode fetchManifest} fetches a form's manifest and verifies its Ed25519 signature
 *    against the manifest key you pinned by fingerprint.
 * 2. {@linkcode buildPayload} validates and coerces values against the form's fields.
 * 3. {@linkcode seal} seals the payload to the form owner's X25519 key (libsodium sealed box).
 * 4. {@linkcode buildEnvelope} wraps it with a fresh submission id.
 * 5. {@linkcode submit} posts it, retrying safely; {@linkcode uploadFile} uploads files first.
 *
 * {@linkcode submitForm} does 2 to 5 (uploads included) in one call, and receivers check
 * webhook calls with {@linkcode verifyWebhookSignature}. See docs/sdk.md.
 *
 * @example
 * ```ts
 * import { fetchManifest, submitForm } from "@sealpost/sealpost/sdk";
 * const manifest = await fetchManifest("contact", {
 *   relayUrl: "https://forms.example.com",
 *   pin: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
 * });
 * const { submissionId, editToken } = await submitForm(manifest, {
 *   email: "ada@example.com",
 *   message: "Hello",
 * });
 * ```
 *
 * @module
 */
export {
  ManifestError,
  NetworkError,
  RelayError,
  SealpostError,
  ValidationError,
} from "./errors.ts";
export type { FieldIssue } from "./errors.ts";
export type { HttpOptions } from "./http.ts";
export { DEFAULT_RELAY_URL, fetchManifest, manifestUrl, verifyManifest } from "./manifest.ts";
export type { FetchManifestOptions } from "./manifest.ts";
export { buildEnvelope, buildPayload, newSubmissionId, seal } from "./payload.ts";
export type { BuildEnvelopeOptions, BuildPayloadOptions } from "./payload.ts";
export { submit, submitForm } from "./submit.ts";
export type { SubmissionReceipt, SubmitFormOptions, SubmitOptions } from "./submit.ts";
export { ownedFileRef, sha256Hex, uploadFile } from "./upload.ts";
export { MAX_FILE_BYTES } from "../forms/file_ref.ts";
export type { FileInput, UploadOptions } from "./upload.ts";
export { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "./webhook.ts";
export { manifestKeyFingerprint } from "../crypto/signing.ts";
export { x25519Impl } from "../crypto/sealed_box.ts";
export type { X25519Impl } from "../crypto/sealed_box.ts";
export { buildValuesSchema, FIELD_KINDS } from "../forms/fields.ts";
export type { FieldDef, FieldKind, FieldValue, GeoPoint, Values } from "../forms/fields.ts";
export type { ExternalFileRef, FileRef, InlineFileRef, OwnedFileRef } from "../forms/file_ref.ts";
export type { Manifest } from "../forms/manifest.ts";
export type { PayloadMode, SubmissionEnvelope, SubmissionPayload } from "../forms/payload.ts";
