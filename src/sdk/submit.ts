/**
 * Sending: `POST /submissions` with safe retries, and the whole path from values to receipt.
 *
 * @module
 */
import type { Manifest } from "../forms/manifest.ts";
import type { PayloadMode, SubmissionEnvelope } from "../forms/payload.ts";
import { RelayError, SealpostError } from "./errors.ts";
import { type HttpOptions, joinUrl, postJson } from "./http.ts";
import { buildEnvelope, buildPayload, seal } from "./payload.ts";
import { type FileInput, type PreparedFile, prepareFile, sendFile } from "./upload.ts";

/** What the relay answers to an accepted submission. */
export interface SubmissionReceipt {
  submissionId: string;
  /** Bearer token for amending this submission later; keep it secret. */
  editToken: string;
}

/** Options of {@linkcode submit}. */
export interface SubmitOptions extends HttpOptions {
  /** Base URL of the relay (for submitForm, default: the manifest's `relayUrl`). */
  relayUrl: string;
}

/**
 * POSTs an envelope to `{relayUrl}/submissions`. Network errors, timeouts, 408, 429 and 5xx
 * are retried with the same envelope (same submissionId), which the relay de-duplicates, so a
 * retry never creates a second submission.
 *
 * @throws {RelayError} with the server's `code`, `message` and `field` (e.g. 400
 * `invalid_request`, 404 for an unknown form, 413 `ciphertext_too_large`).
 * @throws {NetworkError} when the relay never answered.
 * @example
 * ```ts
 * import { submit } from "./submit.ts";
 * const { submissionId, editToken } = await submit(envelope, { relayUrl: manifest.relayUrl });
 * ```
 */
export async function submit(
  envelope: SubmissionEnvelope,
  options: SubmitOptions,
): Promise<SubmissionReceipt> {
  const what = `Submitting ${envelope.submissionId}`;
  const body = await postJson(joinUrl(options.relayUrl, "/submissions"), envelope, what, options);
  const { submissionId, editToken } = (body ?? {}) as Record<string, unknown>;
  if (typeof submissionId !== "string" || typeof editToken !== "string") {
    throw new RelayError(
      200,
      "invalid_response",
      `${what}: the answer lacks submissionId or editToken`,
    );
  }
  return { submissionId, editToken };
}

/** Options of {@linkcode submitForm}. */
export interface SubmitFormOptions extends HttpOptions {
  /** Files to upload first; each becomes the owned file reference of its field. */
  files?: Record<string, FileInput>;
  /** `Create` (default) or `Update`. */
  mode?: PayloadMode;
  /** Who submits, or null (default) for anonymous. */
  submitterId?: string | null;
  /** Relay to upload and submit to (default: the manifest's `relayUrl`). */
  relayUrl?: string;
}

/**
 * The whole sender path for a verified manifest: upload files, validate and coerce values,
 * build the payload, seal it, wrap it, submit it.
 *
 * @throws {ValidationError} naming every field at fault, before anything is sent.
 * @throws {RelayError} / {NetworkError} from the uploads or the submission.
 * @example
 * ```ts
 * import { fetchManifest } from "./manifest.ts";
 * import { submitForm } from "./submit.ts";
 * const manifest = await fetchManifest("contact", { relayUrl, pin });
 * const receipt = await submitForm(manifest, { email: "a@example.com" }, {
 *   files: { photo: { data: bytes, mime: "image/png", fileName: "me.png" } },
 * });
 * ```
 */
export async function submitForm(
  manifest: Manifest,
  values: Record<string, unknown>,
  options: SubmitFormOptions = {},
): Promise<SubmissionReceipt> {
  const relayUrl = options.relayUrl ?? manifest.relayUrl;
  const all: Record<string, unknown> = { ...values };
  const files: [string, PreparedFile][] = [];
  for (const [field, input] of Object.entries(options.files ?? {})) {
    const def = manifest.fields.find((f) => f.id === field);
    if (def?.kind !== "image" && def?.kind !== "attachment") {
      throw new SealpostError(
        "invalid_values",
        `Field "${field}" is not an image or attachment field of form "${manifest.formId}"`,
        { field },
      );
    }
    const file = await prepareFile(manifest, input, { relayUrl, field });
    all[field] = file.ref;
    files.push([field, file]);
  }
  // Every value, file references included, is checked before anything is sent.
  const payload = buildPayload(manifest, all, options);
  for (const [field, file] of files) {
    await sendFile(manifest, file, { ...options, relayUrl, field });
  }
  const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey), {
    submitterId: options.submitterId,
  });
  return submit(envelope, { ...options, relayUrl });
}
