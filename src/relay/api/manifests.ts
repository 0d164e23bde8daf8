/**
 * Published forms over HTTP: the public `GET /forms/{formId}/manifest`, and the owner's
 * publish, close, reopen and unpublish under `/owner/forms/{formId}`; their OpenAPI
 * definitions, schemas and handlers. The form directory itself is `../manifests.ts`.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AuthEnv } from "../../auth/index.ts";
import type { Config } from "../../config/index.ts";
import { Gone, NotFound } from "../../errors/index.ts";
import { ClosedMessageSchema, closedNotice } from "../../forms/closure.ts";
import { ManifestSchema } from "../../forms/manifest.ts";
import { jsonBody } from "../../http/body.ts";
import { FormIdSchema } from "../../http/ids.ts";
import { errors, forOwner, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import type { FormDirectory } from "../manifests.ts";
import type { RelayGuards } from "./_guards.ts";

/** `GET /forms/{formId}/manifest`: a published manifest. */
const getManifest = createRoute({
  method: "get",
  path: "/forms/{formId}/manifest",
  tags: ["forms"],
  summary: "A published form manifest, as published",
  request: { params: z.object({ formId: FormIdSchema }) },
  responses: {
    200: json(ManifestSchema, "The manifest"),
    ...errors({
      404: "Not published",
      410: "form_closed: the owner closed the form; the message is the owner's",
    }),
  },
});

const formParams = z.object({ formId: FormIdSchema });
const closureResponse = z.object({
  formId: z.string(),
  closed: z.object({ message: z.string(), closedAt: z.string() }).nullable(),
});

/** `POST /owner/forms/{formId}/close`: close a published form. */
const closeForm = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/forms/{formId}/close",
  summary: "Close a published form: intake and its page answer 410 form_closed",
  description: "The message (plain text) is what senders read; closing again replaces it.",
  request: {
    params: formParams,
    body: requiredJson(
      z.object({ message: ClosedMessageSchema.default("") }),
      "The owner's message",
    ),
  },
  responses: {
    200: json(closureResponse, "Closed"),
    ...errors({
      400: "Malformed message",
      404: "Not one of the user's published forms",
    }),
  },
}));

/** `POST /owner/forms/{formId}/reopen`: reopen a closed form. */
const reopenForm = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/forms/{formId}/reopen",
  summary: "Reopen a closed form (a no-op for an open one)",
  request: { params: formParams },
  responses: {
    200: json(closureResponse, "Open"),
    ...errors({ 404: "Not one of the user's published forms" }),
  },
}));

/** `DELETE /owner/forms/{formId}`: unpublish a form. */
const unpublishForm = createRoute(forOwner("owner", {
  method: "delete",
  path: "/owner/forms/{formId}",
  summary: "Unpublish a form: its manifest, page and intake answer as for an unknown form",
  description: "Envelopes already queued stay in the owner's queue.",
  request: { params: formParams },
  responses: {
    204: { description: "Unpublished" },
    ...errors({ 404: "Not one of the user's published forms" }),
  },
}));

/** `PUT /owner/forms/{formId}`: publish a form manifest. */
const putManifest = createRoute(forOwner("owner", {
  method: "put",
  path: "/owner/forms/{formId}",
  summary: "Publish (or republish) a form manifest",
  request: {
    params: z.object({ formId: FormIdSchema }),
    body: requiredJson(ManifestSchema, "The signed manifest"),
  },
  responses: {
    200: json(
      z.object({ formId: z.string(), schemaVersion: z.number(), publishedAt: z.string() }),
      "Published",
    ),
    ...errors({
      400: "Malformed manifest",
      403: "The recipient key is not one of the user's databases",
      409: "The form id belongs to another user, or the version went backwards",
      413: "Manifest too large",
    }),
  },
}));

/** A form's closure as the close and reopen routes answer it. */
const closure = (row: { formId: string; closed?: { message: string; closedAt: string } }) => ({
  formId: row.formId,
  closed: row.closed ?? null,
});

/**
 * Mounts the manifest routes on `app`: the public read, then the owner's publish, close,
 * reopen and unpublish.
 *
 * @example
 * ```ts
 * mountManifests(app, { config, forms }, guards);
 * ```
 */
export function mountManifests(
  app: OpenAPIHono<AuthEnv>,
  { config, forms }: { config: Config; forms: FormDirectory },
  { ownerLimit, ownerAuth, smallJson }: RelayGuards,
): void {
  app.openapi(getManifest, async (c) => {
    // Revalidated on every use: a form closes, reopens and is unpublished, and a browser may
    // otherwise keep a 410 or 404 heuristically.
    c.header("cache-control", "no-cache");
    const form = await forms.get(c.req.valid("param").formId);
    if (!form) throw new NotFound("form_not_found", "This form is not published");
    if (form.closed) throw new Gone("form_closed", closedNotice(form.closed.message));
    return c.json(form.manifest as z.infer<typeof ManifestSchema>, 200);
  });

  const manifestBody = jsonBody(() => config.intake.max_manifest_bytes, {
    code: "manifest_too_large",
    message: `Manifest exceeds ${config.intake.max_manifest_bytes} bytes`,
  });
  app.openapi({ ...putManifest, middleware: [ownerLimit, ownerAuth, manifestBody] }, async (c) => {
    const { formId } = c.req.valid("param");
    const { row } = await forms.publish(c.var.owner.userId, formId, c.req.valid("json"));
    return c.json(
      { formId: row.formId, schemaVersion: row.schemaVersion, publishedAt: row.publishedAt },
      200,
    );
  });

  app.openapi({ ...closeForm, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { formId } = c.req.valid("param");
    const row = await forms.close(c.var.owner.userId, formId, c.req.valid("json").message);
    return c.json(closure(row), 200);
  });

  app.openapi({ ...reopenForm, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const row = await forms.reopen(c.var.owner.userId, c.req.valid("param").formId);
    return c.json(closure(row), 200);
  });

  app.openapi({ ...unpublishForm, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const { formId } = c.req.valid("param");
    if (!(await forms.unpublish(c.var.owner.userId, formId))) {
      throw new NotFound("form_not_found", `You have no published form "${formId}"`, "formId");
    }
    return c.body(null, 204);
  });
}
