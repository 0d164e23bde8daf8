/**
 * The schemas of the vault's owner API (`/vault`): its parameters and response bodies, from
 * which the OpenAPI document is generated. The routes are in `route_specs.ts`.
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { toJSONSchema } from "zod";
import { FieldDefSchema } from "../forms/fields.ts";
import * as ids from "../http/ids.ts";

/** JSON Schema of one field definition, from the zod schema that validates it. */
export const FIELD_DEFINITION = (() => {
  const { $schema: _, ...schema } = toJSONSchema(FieldDefSchema, { io: "input" });
  return schema as Record<string, unknown>;
})();

/** `security` of the vault's owner API (OpenAPI). */
export const security = [{ ownerToken: [] }];
/** `tags` of the vault's owner API (OpenAPI). */
export const tags = ["vault"];

/** `FormIdParam` of the vault's owner API (OpenAPI). */
export const FormIdParam = ids.FormIdSchema;
/** `RecordIdParam` of the vault's owner API (OpenAPI). */
export const RecordIdParam = ids.RecordIdSchema;
/** `Fields` of the vault's owner API (OpenAPI). */
export const Fields = z.array(z.record(z.string(), z.unknown())).openapi({
  description: "Field definitions: every kind, its options and value shapes in docs/forms.md",
  items: { $ref: "#/components/schemas/FieldDefinition" },
});

/** `Origins` of the vault's owner API (OpenAPI). */
export const Origins = z.array(z.string()).openapi({
  description: "Origins whose web pages may submit (https://example.com); empty: any",
});

/** `Files` of the vault's owner API (OpenAPI). */
export const Files = z.enum(["plain", "encrypted"]).openapi({
  description: 'How senders handle files: "encrypted" (new forms\' default: each file ' +
    'encrypted to the form\'s key in the age format; docs/uploads.md) or "plain" (the ' +
    "specification's upload flow, for senders that do not encrypt)",
});

/** `Drafts` of the vault's owner API (OpenAPI). */
export const Drafts = z.boolean().openapi({
  description: "Let senders keep a draft on this device: the form page keeps unsent answers, " +
    "encrypted with a key only its address holds (docs/security.md); false (the default): the " +
    "page keeps nothing in the browser",
});

/** `SubmitLabel` of the vault's owner API (OpenAPI). */
export const SubmitLabel = z.string().max(100).openapi({
  description: 'The form page\'s submit button label ("" for the default "Submit")',
});

/** `DatabaseSchema` of the vault's owner API (OpenAPI). */
export const DatabaseSchema = z.object({
  id: z.string(),
  userId: z.string(),
  relayUserId: z.string(),
  name: z.string(),
  publicKey: z.string(),
  fingerprint: z.string(),
  createdAt: z.string(),
}).openapi("VaultDatabase");

/** `FormSchema` of the vault's owner API (OpenAPI). */
export const FormSchema = z.object({
  formId: z.string(),
  userId: z.string(),
  databaseId: z.string(),
  schemaVersion: z.number().int(),
  publishedVersion: z.number().int().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  title: z.string(),
  fields: Fields,
  retentionDays: z.number().int().nullable().openapi({
    description: "Records older than this many days are deleted; null: kept",
  }),
  allowedOrigins: z.array(z.string()),
  submitLabel: z.string(),
  files: Files,
  drafts: Drafts,
  closed: z.object({ message: z.string(), closedAt: z.string() }).nullable().openapi({
    description: "Null while the form takes submissions; else the owner's message to senders " +
      '("" for the default words) and when it was closed',
  }),
  deletedAt: z.string().nullable().openapi({
    description: "When the owner deleted the form (unpublished; its records are kept until " +
      "deleted); null otherwise",
  }),
}).openapi("VaultForm");

/** `VersionSchema` of the vault's owner API (OpenAPI). */
export const VersionSchema = z.object({
  formId: z.string(),
  schemaVersion: z.number().int(),
  title: z.string(),
  fields: Fields,
  allowedOrigins: z.array(z.string()).optional(),
  submitLabel: z.string().optional(),
  files: z.literal("encrypted").optional(),
  drafts: z.literal(true).optional(),
  createdAt: z.string(),
}).openapi("VaultFormVersion");

/** `RecordSchema` of the vault's owner API (OpenAPI). */
export const RecordSchema = z.object({
  _recordId: z.string(),
  _formId: z.string(),
  _savedAt: z.string().openapi({ example: "2025-01-31T12:00:00.1230000+00:00" }),
  _createdAt: z.string(),
  _schemaVersion: z.number().int(),
  _submissionId: z.string().nullable(),
  values: z.record(z.string(), z.unknown()),
}).openapi("VaultRecord");

/** `QuarantineSchema` of the vault's owner API (OpenAPI). */
export const QuarantineSchema = z.object({
  id: z.string(),
  databaseId: z.string(),
  fingerprint: z.string(),
  submissionId: z.string(),
  version: z.number().int(),
  formId: z.string(),
  formVersion: z.number().int().nullable(),
  code: z.string(),
  reason: z.string(),
  receivedAt: z.string(),
  quarantinedAt: z.string(),
  parts: z.number().int(),
}).openapi("QuarantinedEnvelope");

/** `Manifest` of the vault's owner API (OpenAPI). */
export const Manifest = z.record(z.string(), z.unknown()).openapi({
  description: "A signed form manifest",
});
