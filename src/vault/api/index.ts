/**
 * The vault's owner API under `/vault`, one module per resource: `databases.ts`,
 * `manifest_key.ts`, `forms.ts` (versions, manifests, closing, reopening and deleting),
 * `records.ts`, `quarantine.ts`, `ingest.ts`; and the record files of `files.ts`, mounted on
 * their own (`/vault-files` takes no token). Every `/vault` route needs a person's token and
 * acts on the databases the person is a member of, as their role and the token's scopes
 * allow (src/people/access.ts).
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { newRouter } from "../../http/openapi.ts";
import { jsonBody } from "../../http/body.ts";
import { type PersonEnv, requirePerson } from "../../auth/index.ts";
import type { PersonTokenSource } from "../../people/person_tokens.ts";
import type { Vault } from "../service.ts";
import type { VaultApi } from "./_router.ts";
import { addDatabaseRoutes } from "./databases.ts";
import { addManifestKeyRoute } from "./manifest_key.ts";
import { addFormRoutes } from "./forms.ts";
import { addRecordRoutes } from "./records.ts";
import { addQuarantineRoutes } from "./quarantine.ts";
import { addIngestRoute } from "./ingest.ts";

export { vaultFileRoutes } from "./files.ts";

/**
 * Mounts the vault's owner API on a new router.
 *
 * @example
 * ```ts
 * app.route("/", vaultRoutes(vault, vault.store));
 * ```
 */
export function vaultRoutes(vault: Vault, tokens: PersonTokenSource): OpenAPIHono<PersonEnv> {
  const app = newRouter<PersonEnv>();
  const body = jsonBody(() => 1024 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 1 MiB",
  });
  app.use("/vault/*", requirePerson(tokens));
  const api: VaultApi = { app, vault, body: [body] };
  addDatabaseRoutes(api);
  addManifestKeyRoute(api);
  addFormRoutes(api);
  addRecordRoutes(api);
  addQuarantineRoutes(api);
  addIngestRoute(api);
  return app;
}
