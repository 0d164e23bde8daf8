/**
 * The form manifest: what a sender reads to submit to a form. The vault signs it with its
 * Ed25519 manifest key (see `src/crypto/signing.ts`), the relay publishes it at
 * `GET /forms/{formId}/manifest`, and the SDK verifies it against a pinned key fingerprint.
 *
 * Top-level members (a fixed contract): `formId`, `schemaVersion`, `title`,
 * `recipient: {publicKey, userId}`, `fields`, `relayUrl`, `signature?`. Other members are
 * allowed and kept (they are covered by the signature), except anything that looks like
 * outbound (webhook) configuration, which a manifest never carries.
 *
 * @module
 */
import { z } from "zod";
import { base64OfLength, FormIdSchema, HttpUrlSchema, PublicKeyBase64Schema } from "./_common.ts";
import { type FieldDef, FieldsSchema } from "./fields.ts";

/** Ed25519 signature of a manifest, over its canonical encoding without `signature`. */
export interface ManifestSignature {
  alg: "ed25519";
  /** The raw 32-byte Ed25519 public key of the manifest key, standard base64. */
  publicKey: string;
  /** The raw 64-byte signature, standard base64. */
  value: string;
}

/** A form manifest. Members beyond these are allowed and kept. */
export interface Manifest {
  formId: string;
  /** Integer from 1; sent in payloads as `formVersion`. */
  schemaVersion: number;
  title: string;
  recipient: {
    /** The database's X25519 public key, standard base64 of 32 bytes. */
    publicKey: string;
    /** The owner's user id; keys the file-upload path. */
    userId: string;
    [member: string]: unknown;
  };
  fields: FieldDef[];
  /** Base URL of the relay that takes submissions for this form. */
  relayUrl: string;
  /**
   * Origins (`https://example.com`) whose web pages may submit to the form; absent or empty:
   * any. The relay always allows its own hosted form page. See `src/relay/api/cors.ts`.
   */
  allowedOrigins?: string[];
  /** The form page's submit button label (default "Submit"). */
  submitLabel?: string;
  /**
   * How senders handle files: "plain" (absent; the specification's upload flow) or
   * "encrypted" (each file encrypted to `recipient.publicKey` in the age format first).
   * Signed with the rest, so a relay cannot downgrade a sender to plaintext.
   */
  files?: FilesMode;
  /**
   * Whether the form page may keep a sender's unsent answers on their device, encrypted with a
   * key kept only in the page's address (`#…&draft=`); absent or false: it keeps nothing.
   */
  drafts?: boolean;
  /** Who reads the answers, as the form page names them: the owner's display name. */
  owner?: { name: string };
  signature?: ManifestSignature;
  [member: string]: unknown;
}

/** A form's file mode: "plain" (the specification's flow) or "encrypted" (age, end to end). */
export type FilesMode = "plain" | "encrypted";

/** Validates a file mode. */
export const FilesModeSchema: z.ZodType<FilesMode> = z.enum(["plain", "encrypted"]);

/** Validates a manifest signature member. */
export const ManifestSignatureSchema: z.ZodType<ManifestSignature> = z.object({
  alg: z.literal("ed25519"),
  /** The raw 32-byte Ed25519 public key of the manifest key, standard base64. */
  publicKey: base64OfLength(32, "Ed25519 public key"),
  /** The raw 64-byte signature, standard base64. */
  value: base64OfLength(64, "Ed25519 signature"),
});

const OUTBOUND = /webhook|outbound/i;

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * A form's allowed origins: up to 50 web origins such as `https://example.com` or
 * `http://localhost:3000` (scheme, host and port only; no path, no trailing slash).
 *
 * @example
 * ```ts
 * import { AllowedOriginsSchema } from "./manifest.ts";
 * AllowedOriginsSchema.parse(["https://example.com"]);
 * ```
 */
export const AllowedOriginsSchema: z.ZodType<string[]> = z.array(
  z.string().max(300).refine(isOrigin, {
    message: "Must be a web origin such as https://example.com (no path, no trailing slash)",
  }),
).max(50);

/**
 * Validates a form manifest.
 *
 * @example
 * ```ts
 * import { ManifestSchema } from "./manifest.ts";
 * const manifest = ManifestSchema.parse({
 *   formId: "contact",
 *   schemaVersion: 1,
 *   title: "Contact",
 *   recipient: { publicKey: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", userId: "u1" },
 *   fields: [{ id: "email", label: "Email", kind: "email", required: true }],
 *   relayUrl: "https://forms.example.com",
 * });
 * ```
 */
export const ManifestSchema: z.ZodType<Manifest> = z.looseObject({
  formId: FormIdSchema,
  schemaVersion: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  title: z.string().max(500),
  recipient: z.looseObject({
    /** The database's X25519 public key, standard base64 of 32 bytes. */
    publicKey: PublicKeyBase64Schema,
    /** The owner's user id; keys the file-upload path. */
    userId: z.string().min(1).max(128),
  }),
  fields: FieldsSchema,
  /** Base URL of the relay that takes submissions for this form. */
  relayUrl: HttpUrlSchema,
  allowedOrigins: AllowedOriginsSchema.optional(),
  submitLabel: z.string().max(100).optional(),
  files: FilesModeSchema.optional(),
  drafts: z.boolean().optional(),
  owner: z.looseObject({ name: z.string().max(200) }).optional(),
  signature: ManifestSignatureSchema.optional(),
}).superRefine((manifest, ctx) => {
  for (const key of Object.keys(manifest)) {
    if (OUTBOUND.test(key)) {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `Manifest member "${key}" looks like outbound configuration, which a manifest ` +
          "never carries",
      });
    }
  }
});
