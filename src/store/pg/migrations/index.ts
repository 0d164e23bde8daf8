/**
 * Every PostgreSQL migration, in order (src/store/pg/migrate.ts runs them). One file per
 * migration, named `NNNN_what.ts`; a released migration is never edited, only followed.
 *
 * @module
 */
import type { PgMigration } from "../migrate.ts";
import { settings } from "./0001_settings.ts";
import { webhooks } from "./0005_webhooks.ts";

/** The PostgreSQL schema, step by step. */
export const PG_MIGRATIONS: readonly PgMigration[] = [settings, webhooks];
