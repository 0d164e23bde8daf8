/**
 * The vault's databases (`/vault/databases`): a database is a recipient key pair held by this
 * vault and registered with the relay; the user's list, and creating one.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errors, itemsOf, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import { NEED } from "../../people/access.ts";
import { forVault, type VaultApi } from "./_router.ts";

/** A database as the owner API shows it. */
const DatabaseSchema = z.object({
  id: z.string(),
  userId: z.string(),
  relayUserId: z.string(),
  name: z.string(),
  publicKey: z.string(),
  fingerprint: z.string(),
  createdAt: z.string(),
}).openapi("VaultDatabase");

const listDatabases = createRoute(forVault({
  method: "get",
  path: "/vault/databases",
  summary: "The user's databases (recipient keys held by this vault)",
  responses: { 200: json(itemsOf(DatabaseSchema), "Databases") },
}));

const createDatabase = createRoute(forVault({
  method: "post",
  path: "/vault/databases",
  summary: "Create a database: a new key pair, registered with the relay",
  request: {
    body: requiredJson(z.object({ name: z.string().min(1).max(200) }), "Name"),
  },
  responses: {
    201: json(DatabaseSchema, "Created"),
    ...errors({ 400: "Malformed", 502: "The relay did not answer" }),
  },
}));

/**
 * Adds the database routes to the owner API.
 *
 * @example
 * ```ts
 * addDatabaseRoutes({ app, vault, body: [jsonBodyLimit] });
 * ```
 */
export function addDatabaseRoutes({ app, vault, body }: VaultApi): void {
  app.openapi(listDatabases, async (c) => {
    const gate = vault.access.gate(c.var.person, NEED.read);
    return c.json({ items: await vault.listDatabases(gate) }, 200);
  });
  app.openapi({ ...createDatabase, middleware: body }, async (c) => {
    vault.access.admin(c.var.person);
    const db = await vault.createDatabase(c.var.person, c.req.valid("json").name);
    return c.json(db, 201);
  });
}
