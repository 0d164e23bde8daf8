/**
 * Everything between values and the envelope: validate and coerce values against the form's
 * fields, build the payload, seal it, wrap it.
 *
 * @module
 */
import { toBase64, utf8Encode } from "../crypto/encoding.ts";
import { CryptoError } from "../crypto/errors.ts";
import { decodePublicKey } from "../crypto/keys.ts";
import { seal as sealBytes } from "../crypto/sealed_box.ts";
import { buildValuesSchema } from "../forms/fields.ts";
import type { Manifest } from "../forms/manifest.ts";
import type { PayloadMode, SubmissionEnvelope, SubmissionPayload } from "../forms/payload.ts";
import { SealpostError, ValidationError } from "./errors.ts";

/** Options of {@linkcode buildPayload}. */
export interface BuildPayloadOptions {
  /** `Create` (default) or `Update` (amending through the edit-token flow). */
  mode?: PayloadMode;
  /** The submission time (default: now). */
  now?: Date;
}

/**
 * Validates and coerces `values` against the manifest's fields and builds the
 * SubmissionPayload: `formVersion` is the manifest's `schemaVersion`, `formSchema` is `""`.
 *
 * @throws {ValidationError} listing every field at fault.
 * @example
 * ```ts
 * import { buildPayload } from "./payload.ts";
 * const payload = buildPayload(manifest, { email: "a@example.com", age: "42" });
 * payload.values.age; // 42
 * ```
 */
export function buildPayload(
  manifest: Pick<Manifest, "fields" | "schemaVersion">,
  values: Record<string, unknown>,
  options: BuildPayloadOptions = {},
): SubmissionPayload {
  const parsed = buildValuesSchema(manifest.fields, { mode: "coerce" }).safeParse(values);
  if (!parsed.success) {
    const seen = new Set<string>();
    const issues = [];
    for (const issue of parsed.error.issues) {
      const field = issue.path.length ? String(issue.path[0]) : "";
      if (seen.has(field)) continue;
      seen.add(field);
      issues.push({ field, message: issue.message });
    }
    throw new ValidationError(issues);
  }
  return {
    values: parsed.data,
    submittedAt: (options.now ?? new Date()).toISOString(),
    formVersion: manifest.schemaVersion,
    formSchema: "",
    mode: options.mode ?? "Create",
  };
}

/**
 * Seals a payload to the recipient key (raw bytes, or standard base64 as in the manifest):
 * UTF-8 JSON, libsodium sealed box, standard base64.
 *
 * @throws {SealpostError} `invalid_recipient_key` if the key is not a usable 32-byte key.
 * @example
 * ```ts
 * import { buildPayload, seal } from "./payload.ts";
 * const ciphertext = await seal(buildPayload(manifest, values), manifest.recipient.publicKey);
 * ```
 */
export async function seal(
  payload: SubmissionPayload,
  recipientPublicKey: string | Uint8Array,
): Promise<string> {
  try {
    const key = typeof recipientPublicKey === "string"
      ? decodePublicKey(recipientPublicKey)
      : recipientPublicKey;
    return toBase64(await sealBytes(utf8Encode(JSON.stringify(payload)), key));
  } catch (e) {
    if (!(e instanceof CryptoError)) throw e;
    throw new SealpostError("invalid_recipient_key", e.message, {
      cause: e,
      field: "recipient.publicKey",
    });
  }
}

/**
 * A fresh submission id: a random UUIDv4 without dashes (32 lowercase hex characters). Uses
 * `crypto.getRandomValues`, which browsers offer outside secure contexts too.
 *
 * @example
 * ```ts
 * import { newSubmissionId } from "./payload.ts";
 * newSubmissionId(); // "3b241101e2bb42558caf4136c566a962"
 * ```
 */
export function newSubmissionId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Options of {@linkcode buildEnvelope}. */
export interface BuildEnvelopeOptions {
  /** Reuse an id (retrying a submission); default {@linkcode newSubmissionId}. */
  submissionId?: string;
  /** Who submits, or null (default) for an anonymous submission. */
  submitterId?: string | null;
}

/**
 * Wraps a ciphertext in the SubmissionEnvelope for the manifest's form and recipient key.
 *
 * @example
 * ```ts
 * import { buildEnvelope } from "./payload.ts";
 * const envelope = buildEnvelope(manifest, ciphertext);
 * envelope.submissionId.length; // 32
 * ```
 */
export function buildEnvelope(
  manifest: Pick<Manifest, "formId" | "recipient">,
  ciphertext: string,
  options: BuildEnvelopeOptions = {},
): SubmissionEnvelope {
  const submissionId = options.submissionId ?? newSubmissionId();
  if (!/^[0-9a-f]{32}$/.test(submissionId)) {
    throw new SealpostError(
      "invalid_submission_id",
      `Submission id ${JSON.stringify(submissionId)} is not 32 lowercase hex characters`,
      { field: "submissionId" },
    );
  }
  return {
    submissionId,
    formId: manifest.formId,
    recipientPubkey: manifest.recipient.publicKey,
    submitterId: options.submitterId ?? null,
    ciphertext,
  };
}
