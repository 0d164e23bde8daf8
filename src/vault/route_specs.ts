/**
 * The routes of the vault's owner API (`/vault`) as OpenAPI route definitions: method, path,
 * request and responses. Their handlers are in `routes.ts`.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorContent as error, intQuery, jsonContent as json } from "../http/openapi.ts";
import * as ids from "../http/ids.ts";
import { MAX_RETENTION_DAYS } from "./retention.ts";
import {
  DatabaseSchema,
  Drafts,
  Fields,
  Files,
  FormIdParam,
  FormSchema,
  Manifest,
  Origins,
  QuarantineSchema,
  RecordIdParam,
  RecordSchema,
  security,
  SubmitLabel,
  tags,
  VersionSchema,
} from "./route_schemas.ts";

/** The vault owner API's routes, with their request and response schemas. */
export const vaultRouteSpecs = {
  listDatabases: createRoute({
    method: "get",
    path: "/vault/databases",
    tags,
    security,
    summary: "The user's databases (recipient keys held by this vault)",
    responses: { 200: json(z.object({ items: z.array(DatabaseSchema) }), "Databases") },
  }),
  createDatabase: createRoute({
    method: "post",
    path: "/vault/databases",
    tags,
    security,
    summary: "Create a database: a new key pair, registered with the relay",
    request: {
      body: { ...json(z.object({ name: z.string().min(1).max(200) }), "Name"), required: true },
    },
    responses: {
      201: json(DatabaseSchema, "Created"),
      400: error("Malformed"),
      502: error("The relay did not answer"),
    },
  }),
  manifestKey: createRoute({
    method: "get",
    path: "/vault/manifest-key",
    tags,
    security,
    summary: "The manifest-signing key: its fingerprint is what senders pin",
    responses: {
      200: json(z.object({ fingerprint: z.string(), publicKey: z.string() }), "The key"),
    },
  }),
  listForms: createRoute({
    method: "get",
    path: "/vault/forms",
    tags,
    security,
    summary: "The user's forms, each at its current schema version (deleted forms left out)",
    responses: { 200: json(z.object({ items: z.array(FormSchema) }), "Forms") },
  }),
  createForm: createRoute({
    method: "post",
    path: "/vault/forms",
    tags,
    security,
    summary: "Create a form (schema version 1); optionally publish it at once",
    request: {
      body: {
        ...json(
          z.object({
            databaseId: ids.DatabaseIdSchema,
            formId: FormIdParam.optional(),
            title: z.string().max(500),
            fields: Fields,
            allowedOrigins: Origins.optional(),
            submitLabel: SubmitLabel.optional(),
            files: Files.optional(),
            drafts: Drafts.optional(),
            publish: z.boolean().default(false),
          }),
          "The form",
        ),
        required: true,
      },
    },
    responses: {
      201: json(FormSchema, "Created"),
      400: error("Malformed fields"),
      413: error("form_too_large: title and fields over 64 KiB"),
      404: error("Unknown database"),
      409: error("Form id taken"),
    },
  }),
  getForm: createRoute({
    method: "get",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "A form at its current schema version",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: { 200: json(FormSchema, "The form"), 404: error("Unknown form") },
  }),
  updateForm: createRoute({
    method: "put",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "Archive a new schema version (schemaVersion + 1); optionally publish it",
    request: {
      params: z.object({ formId: FormIdParam }),
      body: {
        ...json(
          z.object({
            title: z.string().max(500).optional(),
            fields: Fields,
            allowedOrigins: Origins.optional(),
            submitLabel: SubmitLabel.optional(),
            files: Files.optional(),
            drafts: Drafts.optional(),
            publish: z.boolean().default(false),
          }),
          "The new schema",
        ),
        required: true,
      },
    },
    responses: {
      200: json(FormSchema, "The new version"),
      400: error("Malformed fields"),
      413: error("form_too_large: title and fields over 64 KiB"),
      404: error("Unknown form"),
    },
  }),
  formSettings: createRoute({
    method: "patch",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "Change a form's settings (no new schema version): retentionDays",
    request: {
      params: z.object({ formId: FormIdParam }),
      body: {
        ...json(
          z.strictObject({
            retentionDays: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().openapi({
              description:
                `Delete records older than this many days (1 to ${MAX_RETENTION_DAYS}); ` +
                "null turns retention off",
            }),
          }),
          "The settings to change",
        ),
        required: true,
      },
    },
    responses: {
      200: json(FormSchema, "The form"),
      400: error("Malformed settings"),
      404: error("Unknown form"),
    },
  }),
  versions: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/versions",
    tags,
    security,
    summary: "Every archived schema version of a form",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: {
      200: json(z.object({ items: z.array(VersionSchema) }), "Versions, oldest first"),
      404: error("Unknown form"),
    },
  }),
  publish: createRoute({
    method: "post",
    path: "/vault/forms/{formId}/publish",
    tags,
    security,
    summary: "Sign the current version's manifest and publish it to the relay",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: {
      200: json(z.object({ form: FormSchema, manifest: Manifest }), "Published"),
      404: error("Unknown form"),
      502: error("The relay did not answer"),
    },
  }),
  exportManifest: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/manifest",
    tags,
    security,
    summary: "Export the signed manifest of the current version (no outbound configuration)",
    request: { params: z.object({ formId: FormIdParam }) },
    responses: { 200: json(Manifest, "The manifest"), 404: error("Unknown form") },
  }),
  listRecords: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/records",
    tags,
    security,
    summary: "A page of a form's records",
    description: "In record-id order. A page can hold fewer than `limit` records while more " +
      "follow (deleted records are skipped): read on while `nextCursor` is not null.",
    request: {
      params: z.object({ formId: FormIdParam }),
      query: z.object({
        cursor: ids.CursorSchema.optional(),
        limit: intQuery(1, 1000).default(100),
      }),
    },
    responses: {
      200: json(
        z.object({ items: z.array(RecordSchema), nextCursor: z.string().nullable() }),
        "Records",
      ),
      404: error("Unknown form"),
    },
  }),
  createRecord: createRoute({
    method: "post",
    path: "/vault/forms/{formId}/records",
    tags,
    security,
    summary: "Create a record by hand (checked against the current schema)",
    request: {
      params: z.object({ formId: FormIdParam }),
      body: {
        ...json(z.object({ values: z.record(z.string(), z.unknown()) }), "Values"),
        required: true,
      },
    },
    responses: {
      201: json(RecordSchema, "Created"),
      400: error("Invalid values"),
      404: error("Unknown form"),
      413: error("Record too large"),
    },
  }),
  getRecord: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/records/{recordId}",
    tags,
    security,
    summary: "One record",
    request: { params: z.object({ formId: FormIdParam, recordId: RecordIdParam }) },
    responses: { 200: json(RecordSchema, "The record"), 404: error("Unknown record") },
  }),
  editRecord: createRoute({
    method: "patch",
    path: "/vault/forms/{formId}/records/{recordId}",
    tags,
    security,
    summary: "Edit a record: the values given replace those fields (null clears one)",
    request: {
      params: z.object({ formId: FormIdParam, recordId: RecordIdParam }),
      body: {
        ...json(z.object({ values: z.record(z.string(), z.unknown()) }), "Changes"),
        required: true,
      },
    },
    responses: {
      200: json(RecordSchema, "The record after the edit"),
      400: error("Invalid values"),
      404: error("Unknown record"),
      413: error("Record too large"),
    },
  }),
  deleteRecord: createRoute({
    method: "delete",
    path: "/vault/forms/{formId}/records/{recordId}",
    tags,
    security,
    summary: "Delete a record",
    request: { params: z.object({ formId: FormIdParam, recordId: RecordIdParam }) },
    responses: { 204: { description: "Deleted" }, 404: error("Unknown record") },
  }),
  listQuarantine: createRoute({
    method: "get",
    path: "/vault/quarantine",
    tags,
    security,
    summary: "Envelopes that could not become records, with the reason",
    request: { query: z.object({ formId: FormIdParam.optional() }) },
    responses: { 200: json(z.object({ items: z.array(QuarantineSchema) }), "Quarantine") },
  }),
  retryQuarantine: createRoute({
    method: "post",
    path: "/vault/quarantine/retry",
    tags,
    security,
    summary: "Process quarantined envelopes again (one by id, or all)",
    request: {
      body: {
        ...json(z.object({ id: ids.QuarantineIdSchema.optional() }), "Which one (all if absent)"),
        required: true,
      },
    },
    responses: {
      200: json(
        z.object({
          items: z.array(z.object({
            id: z.string(),
            outcome: z.enum(["record", "quarantined", "duplicate"]),
            code: z.string().optional(),
            reason: z.string().optional(),
          })),
        }),
        "What became of each",
      ),
      404: error("Unknown id"),
    },
  }),
  discardQuarantine: createRoute({
    method: "delete",
    path: "/vault/quarantine/{id}",
    tags,
    security,
    summary: "Discard a quarantined envelope for good",
    request: { params: z.object({ id: ids.QuarantineIdSchema }) },
    responses: { 204: { description: "Discarded" }, 404: error("Unknown id") },
  }),
  ingest: createRoute({
    method: "post",
    path: "/vault/ingest",
    tags,
    security,
    summary: "Drain the queues now (ingest also runs on its own)",
    responses: {
      200: json(
        z.object({
          records: z.number().int(),
          quarantined: z.number().int(),
          duplicates: z.number().int(),
        }),
        "Counts",
      ),
    },
  }),
};
