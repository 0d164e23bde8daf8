/**
 * The sealed plaintext (SubmissionPayload) and the request body of `POST /submissions`
 * (SubmissionEnvelope), per the specification.
 *
 * @module
 */
import { z } from "zod";
import { FormIdSchema, SubmissionIdSchema } from "./ids.ts";
import { Base64Schema, PublicKeyBase64Schema } from "./_common.ts";

export { SubmissionIdSchema };

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;

function isIsoUtc(value: string): boolean {
  if (!ISO_UTC.test(value)) return false;
  const ms = Date.parse(value.slice(0, 19) + "Z");
  // Date.parse rolls impossible dates (02-30) over; a round trip catches them.
  return !isNaN(ms) && new Date(ms).toISOString().slice(0, 19) === value.slice(0, 19);
}

/** An ISO-8601 UTC timestamp such as `2025-01-31T12:00:00.000Z`. */
export const IsoUtcSchema: z.ZodString = z.string().refine(isIsoUtc, {
  message: "Must be an ISO-8601 UTC timestamp such as 2025-01-31T12:00:00.000Z",
});

/** `Create` for a new submission, `Update` when amending one through the edit-token flow. */
export const PayloadModeSchema: z.ZodType<PayloadMode> = z.enum(["Create", "Update"]);

/** A payload mode. */
export type PayloadMode = "Create" | "Update";

/** The plaintext that is sealed (UTF-8 JSON). */
export interface SubmissionPayload {
  /** Field id to value. */
  values: Record<string, unknown>;
  /** ISO-8601 UTC timestamp. */
  submittedAt: string;
  /** The form's schemaVersion. */
  formVersion: number;
  /** Legacy; an empty string. */
  formSchema: string;
  mode: PayloadMode;
}

/** The body of `POST /submissions`. */
export interface SubmissionEnvelope {
  /** UUIDv4 without dashes: 32 lowercase hex characters. */
  submissionId: string;
  formId: string;
  /** Standard base64 of the 32-byte X25519 key the ciphertext is sealed to. */
  recipientPubkey: string;
  /** null or absent for anonymous submissions. */
  submitterId?: string | null;
  /** Standard base64 of the sealed box of the payload. */
  ciphertext: string;
}

/**
 * The plaintext that is sealed: UTF-8 JSON of this object. `values` is checked against the
 * form's fields separately (see `buildValuesSchema`), once the schema version is known.
 *
 * @example
 * ```ts
 * import { SubmissionPayloadSchema } from "./payload.ts";
 * SubmissionPayloadSchema.parse({
 *   values: { email: "a@example.com" },
 *   submittedAt: "2025-01-31T12:00:00.000Z",
 *   formVersion: 1,
 *   formSchema: "",
 *   mode: "Create",
 * });
 * ```
 */
export const SubmissionPayloadSchema: z.ZodType<SubmissionPayload> = z.object({
  values: z.record(z.string(), z.unknown()),
  submittedAt: IsoUtcSchema,
  formVersion: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /** Legacy; senders send an empty string. */
  formSchema: z.string(),
  mode: PayloadModeSchema,
});

/** The envelope's fields but its ciphertext (shared by the two envelope schemas). */
const envelopeFields = {
  submissionId: SubmissionIdSchema,
  formId: FormIdSchema,
  /** Standard base64 of the 32-byte X25519 key the ciphertext is sealed to. */
  recipientPubkey: PublicKeyBase64Schema,
  /** null (or absent) for anonymous submissions. */
  submitterId: z.string().max(256).nullable().optional(),
};

/**
 * The body of `POST /submissions`. The ciphertext is only checked to be strict base64 here; its
 * size limit (413) is the relay's business.
 *
 * @example
 * ```ts
 * import { SubmissionEnvelopeSchema } from "./payload.ts";
 * const envelope = SubmissionEnvelopeSchema.parse(await request.json());
 * ```
 */
export const SubmissionEnvelopeSchema: z.ZodType<SubmissionEnvelope> = z.object({
  ...envelopeFields,
  /** Standard base64 of the sealed box of the payload. */
  ciphertext: Base64Schema,
});

/**
 * The envelope as `POST /submissions` validates it: the same fields, with `ciphertext` only a
 * string here. Intake decodes it strictly, once (src/relay/submissions.ts), instead of checking
 * it and then decoding it: two passes over up to 1.3 MB of base64 per request. (An amendment
 * keeps the full schema: its 400 comes before the edit token's 403, as it always did.)
 */
export const IntakeEnvelopeSchema: z.ZodType<SubmissionEnvelope> = z.object({
  ...envelopeFields,
  /** Standard base64 of the sealed box of the payload (checked as intake decodes it). */
  ciphertext: z.string(),
});
