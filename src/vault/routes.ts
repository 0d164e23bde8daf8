/**
 * The vault's owner API under `/vault`: databases, forms and versions, manifests, closing,
 * reopening and deleting forms, records, quarantine. Every route needs an owner token and acts on that user's data only.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { newRouter } from "../http/openapi.ts";
import { jsonBody } from "../http/body.ts";
import { type OwnerEnv, requireOwner, type TokenSource } from "../auth/index.ts";
import { FIELD_DEFINITION } from "./route_schemas.ts";
import { vaultRouteSpecs as r } from "./route_specs.ts";
import { lifecycleRouteSpecs as life } from "./lifecycle_route_specs.ts";
import type { Vault } from "./service.ts";

/** Mounts the vault's owner API on a new router. */
export function vaultRoutes(vault: Vault, tokens: TokenSource): OpenAPIHono<OwnerEnv> {
  const app = newRouter<OwnerEnv>();
  // The full field-definition schema, generated from the zod schemas that validate it.
  app.openAPIRegistry.registerComponent("schemas", "FieldDefinition", FIELD_DEFINITION);
  const auth = requireOwner(tokens);
  const body = jsonBody(() => 1024 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 1 MiB",
  });
  const mw = [body];
  app.use("/vault/*", auth);

  app.openapi(r.listDatabases, async (c) => {
    return c.json({ items: await vault.listDatabases(c.var.owner.userId) }, 200);
  });
  app.openapi({ ...r.createDatabase, middleware: mw }, async (c) => {
    const db = await vault.createDatabase(c.var.owner.userId, c.req.valid("json").name);
    return c.json(db, 201);
  });
  app.openapi(r.manifestKey, async (c) => {
    const { publicKey } = await vault.keys.manifestKey();
    return c.json({
      fingerprint: await vault.keys.manifestFingerprint(),
      publicKey: publicKey.toBase64(),
    }, 200);
  });
  app.openapi(r.listForms, async (c) => {
    return c.json({ items: await vault.forms.list(c.var.owner.userId) }, 200);
  });
  app.openapi({ ...r.createForm, middleware: mw }, async (c) => {
    const userId = c.var.owner.userId;
    const { publish, ...input } = c.req.valid("json");
    const form = await vault.createForm(userId, input);
    if (!publish) return c.json(form, 201);
    return c.json((await vault.publish(userId, form.formId)).form, 201);
  });
  app.openapi(r.getForm, async (c) => {
    return c.json(await vault.forms.get(c.var.owner.userId, c.req.valid("param").formId), 200);
  });
  app.openapi({ ...r.updateForm, middleware: mw }, async (c) => {
    const userId = c.var.owner.userId;
    const { formId } = c.req.valid("param");
    const { publish, ...input } = c.req.valid("json");
    const form = await vault.forms.update(userId, formId, input);
    if (!publish) return c.json(form, 200);
    return c.json((await vault.publish(userId, formId)).form, 200);
  });
  app.openapi({ ...r.formSettings, middleware: mw }, async (c) => {
    const { formId } = c.req.valid("param");
    const { retentionDays } = c.req.valid("json");
    return c.json(await vault.forms.setRetention(c.var.owner.userId, formId, retentionDays), 200);
  });
  app.openapi(r.versions, async (c) => {
    const { formId } = c.req.valid("param");
    return c.json({ items: await vault.forms.versions(c.var.owner.userId, formId) }, 200);
  });
  app.openapi(r.publish, async (c) => {
    return c.json(await vault.publish(c.var.owner.userId, c.req.valid("param").formId), 200);
  });
  app.openapi({ ...life.closeForm, middleware: mw }, async (c) => {
    const { formId } = c.req.valid("param");
    const { message } = c.req.valid("json");
    return c.json(await vault.lifecycle.close(c.var.owner.userId, formId, message), 200);
  });
  app.openapi(life.reopenForm, async (c) => {
    const { formId } = c.req.valid("param");
    return c.json(await vault.lifecycle.reopen(c.var.owner.userId, formId), 200);
  });
  app.openapi(life.deleteForm, async (c) => {
    await vault.lifecycle.delete(c.var.owner.userId, c.req.valid("param").formId);
    return c.body(null, 204);
  });
  app.openapi(r.exportManifest, async (c) => {
    return c.json(await vault.manifest(c.var.owner.userId, c.req.valid("param").formId), 200);
  });
  app.openapi(r.listRecords, async (c) => {
    const { formId } = c.req.valid("param");
    await vault.forms.get(c.var.owner.userId, formId);
    const { cursor, limit } = c.req.valid("query");
    return c.json(await vault.listRecords(formId, cursor, limit), 200);
  });
  app.openapi({ ...r.createRecord, middleware: mw }, async (c) => {
    const { formId } = c.req.valid("param");
    const record = await vault.createRecord(
      c.var.owner.userId,
      formId,
      c.req.valid("json").values,
    );
    return c.json(record, 201);
  });
  app.openapi(r.getRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.forms.get(c.var.owner.userId, formId);
    return c.json(await vault.record(formId, recordId), 200);
  });
  app.openapi({ ...r.editRecord, middleware: mw }, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    const { values } = c.req.valid("json");
    return c.json(await vault.editRecord(c.var.owner.userId, formId, recordId, values), 200);
  });
  app.openapi(r.deleteRecord, async (c) => {
    const { formId, recordId } = c.req.valid("param");
    await vault.deleteRecord(c.var.owner.userId, formId, recordId);
    return c.body(null, 204);
  });
  app.openapi(r.listQuarantine, async (c) => {
    const { formId } = c.req.valid("query");
    return c.json({ items: await vault.listQuarantine(c.var.owner.userId, formId) }, 200);
  });
  app.openapi({ ...r.retryQuarantine, middleware: mw }, async (c) => {
    const { id } = c.req.valid("json");
    return c.json({ items: await vault.retryQuarantine(c.var.owner.userId, id) }, 200);
  });
  app.openapi(r.discardQuarantine, async (c) => {
    await vault.discardQuarantine(c.var.owner.userId, c.req.valid("param").id);
    return c.body(null, 204);
  });
  app.openapi(r.ingest, async (c) => {
    return c.json(await vault.ingest.drain(), 200);
  });
  return app;
}
