/**
 * A form's records (`/vault/forms/{formId}/records`): pages of them, creating one by hand
 * (checked against the form's current schema), reading, editing and deleting one.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorContent as error, intQuery, jsonContent as json } from "../../http/openapi.ts";
import * as ids from "../../http/ids.ts";
import {
  FormIdParam,
  FormParams,
  RecordIdParam,
  security,
  tags,
  type VaultApi,
} from "./_router.ts";

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

const listRecords = createRoute({
  method: "get",
  path: "/vault/forms/{formId}/records",
  tags,
  security,
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
      z.object({ items: z.array(RecordSchema), nextCursor: z.string().nullable() }),
      "Records",
    ),
    404: error("Unknown form"),
  },
});

const createRecord = createRoute({
  method: "post",
  path: "/vault/forms/{formId}/records",
  tags,
  security,
  summary: "Create a record by hand (checked against the current schema)",
  request: {
    params: FormParams,
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
});

const getRecord = createRoute({
  method: "get",
  path: "/vault/forms/{formId}/records/{recordId}",
  tags,
  security,
  summary: "One record",
  request: { params: RecordParams },
  responses: { 200: json(RecordSchema, "The record"), 404: error("Unknown record") },
});

const editRecord = createRoute({
  method: "patch",
  path: "/vault/forms/{formId}/records/{recordId}",
  tags,
  security,
  summary: "Edit a record: the values given replace those fields (null clears one)",
  request: {
    params: RecordParams,
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
});

const deleteRecord = createRoute({
  method: "delete",
  path: "/vault/forms/{formId}/records/{recordId}",
  tags,
  security,
  summary: "Delete a record",
  request: { params: RecordParams },
  responses: { 204: { description: "Deleted" }, 404: error("Unknown record") },
});

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
    await vault.forms.get(c.var.owner.userId, formId);
    const { cursor, limit } = c.req.valid("query");
    return c.json(await vault.listRecords(formId, cursor, limit), 200);
  });
  app.openapi({ ...createRecord, middleware: body }, async (c) => {
    const { formId } = c.req.valid("param");
    const record = await vault.createRecord(
      c.var.owner.userId,
      formId,
      c.req.valid("json").values,
    );
    return c.json(record, 201);
  });
  app.openapi(getRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.forms.get(c.var.owner.userId, formId);
    return c.json(await vault.record(formId, recordId), 200);
  });
  app.openapi({ ...editRecord, middleware: body }, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    const { values } = c.req.valid("json");
    return c.json(await vault.editRecord(c.var.owner.userId, formId, recordId, values), 200);
  });
  app.openapi(deleteRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.deleteRecord(c.var.owner.userId, formId, recordId);
    return c.body(null, 204);
  });
}
