/**
 * Every PostgreSQL migration, in order (src/store/pg/migrate.ts runs them). One file per
 * migration, named `NNNN_what.ts`; a released migration is never edited, only followed.
 *
 * @module
 */
import type { PgMigration } from "../migrate.ts";
import { settings } from "./0001_settings.ts";
import { envelopes } from "./0002_envelopes.ts";
import { relayMeta } from "./0003_relay_meta.ts";
import { vault } from "./0004_vault.ts";
import { webhooks } from "./0005_webhooks.ts";
import { formClosure } from "./0006_form_closure.ts";

/** The PostgreSQL schema, step by step. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  settings,
  envelopes,
  relayMeta,
  vault,
  webhooks,
  formClosure,
];
