/**
 * A form's records (`/vault/forms/{formId}/records`): pages of them, creating one by hand
 * (checked against the form's current schema), reading, editing and deleting one.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errors, intQuery, jsonContent as json, pageOf, requiredJson } from "../../http/openapi.ts";
import * as ids from "../../http/ids.ts";
import { NEED } from "../../people/access.ts";
import { actionBy } from "../../audit/sink.ts";
import { FormIdParam, FormParams, forVault, RecordIdParam, type VaultApi } from "./_router.ts";

/** A record as the owner API shows it. */
const RecordSchema = z.object({
  _recordId: z.string(),
  _formId: z.string(),
  _savedAt: z.string().openapi({ example: "2025-01-31T12:00:00.1230000+00:00" }),
  _createdAt: z.string(),
  _schemaVersion: z.number().int(),
  _submissionId: z.string().nullable(),
  values: z.record(z.string(), z.unknown()),
}).openapi("VaultRecord");

const RecordParams = z.object({ formId: FormIdParam, recordId: RecordIdParam });

const listRecords = createRoute(forVault({
  method: "get",
  path: "/vault/forms/{formId}/records",
  summary: "A page of a form's records",
  description: "In record-id order. A page can hold fewer than `limit` records while more " +
    "follow (deleted records are skipped): read on while `nextCursor` is not null.",
  request: {
    params: FormParams,
    query: z.object({
      cursor: ids.CursorSchema.optional(),
      limit: intQuery(1, 1000).default(100),
    }),
  },
  responses: {
    200: json(
      pageOf(RecordSchema),
      "Records",
    ),
    ...errors({ 404: "Unknown form" }),
  },
}));

/** Field values, in creating a record and in editing one. */
const ValuesSchema = z.object({ values: z.record(z.string(), z.unknown()) });

/** How values are refused, in creating a record and in editing one. */
const VALUE_ERRORS = { 400: "Invalid values", 413: "Record too large" } as const;

const createRecord = createRoute(forVault({
  method: "post",
  path: "/vault/forms/{formId}/records",
  summary: "Create a record by hand (checked against the current schema)",
  request: {
    params: FormParams,
    body: requiredJson(ValuesSchema, "Values"),
  },
  responses: {
    201: json(RecordSchema, "Created"),
    ...errors({ ...VALUE_ERRORS, 404: "Unknown form" }),
  },
}));

const getRecord = createRoute(forVault({
  method: "get",
  path: "/vault/forms/{formId}/records/{recordId}",
  summary: "One record",
  request: { params: RecordParams },
  responses: { 200: json(RecordSchema, "The record"), ...errors({ 404: "Unknown record" }) },
}));

const editRecord = createRoute(forVault({
  method: "patch",
  path: "/vault/forms/{formId}/records/{recordId}",
  summary: "Edit a record: the values given replace those fields (null clears one)",
  request: {
    params: RecordParams,
    body: requiredJson(ValuesSchema, "Changes"),
  },
  responses: {
    200: json(RecordSchema, "The record after the edit"),
    ...errors({ ...VALUE_ERRORS, 404: "Unknown record" }),
  },
}));

const deleteRecord = createRoute(forVault({
  method: "delete",
  path: "/vault/forms/{formId}/records/{recordId}",
  summary: "Delete a record",
  request: { params: RecordParams },
  responses: { 204: { description: "Deleted" }, ...errors({ 404: "Unknown record" }) },
}));

/**
 * Adds the record routes to the owner API.
 *
 * @example
 * ```ts
 * addRecordRoutes({ app, vault, body: [jsonBodyLimit] });
 * ```
 */
export function addRecordRoutes({ app, vault, body }: VaultApi): void {
  app.openapi(listRecords, async (c) => {
    const { formId } = c.req.valid("param");
    const form = await vault.forms.get(vault.access.gate(c.var.person, NEED.read), formId);
    const { cursor, limit } = c.req.valid("query");
    const page = await vault.listRecords(formId, cursor, limit);
    // Reading a form's records through the API (`sealpost records list|export`): once per read,
    // at its first page, not once a page.
    if (cursor === undefined) {
      vault.audit.record(actionBy(c.var.person, "records_exported", {
        databaseId: form.databaseId,
        target: { kind: "form", id: formId },
        detail: { format: "api" },
      }));
    }
    return c.json(page, 200);
  });
  app.openapi({ ...createRecord, middleware: body }, async (c) => {
    const { formId } = c.req.valid("param");
    const record = await vault.createRecord(
      vault.access.gate(c.var.person, NEED.records),
      formId,
      c.req.valid("json").values,
    );
    return c.json(record, 201);
  });
  app.openapi(getRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    const gate = vault.access.gate(c.var.person, NEED.read);
    const form = await vault.forms.get(gate, formId);
    const record = await vault.record(formId, recordId);
    vault.audit.record(actionBy(c.var.person, "record_viewed", {
      databaseId: form.databaseId,
      target: { kind: "record", id: `${formId}/${recordId}` },
    }));
    return c.json(record, 200);
  });
  app.openapi({ ...editRecord, middleware: body }, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    const { values } = c.req.valid("json");
    const gate = vault.access.gate(c.var.person, NEED.records);
    return c.json(await vault.editRecord(gate, formId, recordId, values), 200);
  });
  app.openapi(deleteRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.deleteRecord(vault.access.gate(c.var.person, NEED.records), formId, recordId);
    return c.body(null, 204);
  });
}
