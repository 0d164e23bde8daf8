/**
 * Ingest on demand (`POST /vault/ingest`): drain the relay's queues now rather than at the
 * ingest loop's next turn.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent as json } from "../../http/openapi.ts";
import { forVault, type VaultApi } from "./_router.ts";

const ingest = createRoute(forVault({
  method: "post",
  path: "/vault/ingest",
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
}));

/**
 * Adds the ingest route to the owner API.
 *
 * @example
 * ```ts
 * addIngestRoute({ app, vault, body: [jsonBodyLimit] });
 * ```
 */
export function addIngestRoute({ app, vault }: VaultApi): void {
  app.openapi(ingest, async (c) => {
    vault.access.admin(c.var.person);
    return c.json(await vault.ingest.drain(), 200);
  });
}
