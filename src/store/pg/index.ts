/**
 * The PostgreSQL backend's face to the command line (src/cli, src/ops, src/doctor): connecting
 * and naming a database without its password, the schema's migrations and settings, and the
 * copies from a Deno KV store that `migrate-store` runs. Serving opens the backend through
 * src/store/open.ts, never through this module.
 *
 * @module
 */
export { describePgUrl, openPg, type Sql } from "./db.ts";
export { copyAuditFromKv } from "./from_kv/audit.ts";
export { copyEnvelopesFromKv } from "./from_kv/envelopes.ts";
export { copyRelayMetaFromKv } from "./from_kv/relay_meta.ts";
export { copyVaultFromKv } from "./from_kv/vault.ts";
export { copyWebhooksFromKv } from "./from_kv/webhooks.ts";
export { migratePg } from "./migrate.ts";
export { PG_SETTINGS } from "./settings.ts";
export { PgUnavailableError } from "./store.ts";
