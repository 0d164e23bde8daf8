/**
 * The owner API routes of a form's life after publishing (`/vault/forms/{formId}/close`,
 * `/reopen`, `DELETE /vault/forms/{formId}`) as OpenAPI route definitions; their handlers are
 * in `routes.ts`, the service in `form_lifecycle.ts`.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorContent as error, jsonContent as json } from "../http/openapi.ts";
import { ClosedMessageSchema } from "../forms/closure.ts";
import { FormIdParam, FormSchema, security, tags } from "./route_schemas.ts";

const params = z.object({ formId: FormIdParam });

/** Closing, reopening and deleting a form. */
export const lifecycleRouteSpecs = {
  closeForm: createRoute({
    method: "post",
    path: "/vault/forms/{formId}/close",
    tags,
    security,
    summary: "Close a form: the relay answers its submissions and page with 410 form_closed",
    description: "Senders read `message` (plain text, escaped wherever it is shown) or, when it " +
      "is empty, the default words. Amendments of earlier submissions are refused too. " +
      "Closing a closed form again replaces its message.",
    request: {
      params,
      body: {
        ...json(
          z.object({ message: ClosedMessageSchema.default("") }),
          "The owner's message to senders",
        ),
        required: true,
      },
    },
    responses: {
      200: json(FormSchema, "The closed form"),
      400: error("Message over 500 characters"),
      404: error("Unknown form, or form_deleted"),
      502: error("The relay did not answer"),
    },
  }),
  reopenForm: createRoute({
    method: "post",
    path: "/vault/forms/{formId}/reopen",
    tags,
    security,
    summary: "Reopen a closed form: it takes submissions again",
    request: { params },
    responses: {
      200: json(FormSchema, "The open form"),
      404: error("Unknown form, or form_deleted"),
      502: error("The relay did not answer"),
    },
  }),
  deleteForm: createRoute({
    method: "delete",
    path: "/vault/forms/{formId}",
    tags,
    security,
    summary: "Delete a form: unpublished at the relay and out of the form list",
    description: "Its manifest, page and submissions then answer 404 as for an unknown form. " +
      "Its records are kept (listed, readable, exportable) until you delete them; the form's " +
      "own routes then answer form_deleted. Idempotent.",
    request: { params },
    responses: {
      204: { description: "Deleted" },
      404: error("Unknown form"),
      502: error("The relay did not answer"),
    },
  }),
};
