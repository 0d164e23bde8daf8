/**
 * The vault's quarantine (`/vault/quarantine`): envelopes that could not become records, each
 * with the reason; retrying them (after fixing the form) and discarding them.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errors, itemsOf, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import * as ids from "../../http/ids.ts";
import { NEED } from "../../people/access.ts";
import { FormIdParam, forVault, type VaultApi } from "./_router.ts";

/** A quarantined envelope as the owner API shows it. */
const QuarantineSchema = z.object({
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

const listQuarantine = createRoute(forVault({
  method: "get",
  path: "/vault/quarantine",
  summary: "Envelopes that could not become records, with the reason",
  request: { query: z.object({ formId: FormIdParam.optional() }) },
  responses: { 200: json(itemsOf(QuarantineSchema), "Quarantine") },
}));

const retryQuarantine = createRoute(forVault({
  method: "post",
  path: "/vault/quarantine/retry",
  summary: "Process quarantined envelopes again (one by id, or all)",
  request: {
    body: requiredJson(
      z.object({ id: ids.QuarantineIdSchema.optional() }),
      "Which one (all if absent)",
    ),
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
    ...errors({ 404: "Unknown id" }),
  },
}));

const discardQuarantine = createRoute(forVault({
  method: "delete",
  path: "/vault/quarantine/{id}",
  summary: "Discard a quarantined envelope for good",
  request: { params: z.object({ id: ids.QuarantineIdSchema }) },
  responses: { 204: { description: "Discarded" }, ...errors({ 404: "Unknown id" }) },
}));

/**
 * Adds the quarantine routes to the owner API.
 *
 * @example
 * ```ts
 * addQuarantineRoutes({ app, vault, body: [jsonBodyLimit] });
 * ```
 */
export function addQuarantineRoutes({ app, vault, body }: VaultApi): void {
  app.openapi(listQuarantine, async (c) => {
    const { formId } = c.req.valid("query");
    const gate = vault.access.gate(c.var.person, NEED.quarantine);
    return c.json({ items: await vault.listQuarantine(gate, formId) }, 200);
  });
  app.openapi({ ...retryQuarantine, middleware: body }, async (c) => {
    const { id } = c.req.valid("json");
    const gate = vault.access.gate(c.var.person, NEED.records);
    return c.json({ items: await vault.retryQuarantine(gate, id) }, 200);
  });
  app.openapi(discardQuarantine, async (c) => {
    const gate = vault.access.gate(c.var.person, NEED.records);
    await vault.discardQuarantine(gate, c.req.valid("param").id);
    return c.body(null, 204);
  });
}
