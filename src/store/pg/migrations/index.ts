/**
 * Every PostgreSQL migration, in order (src/store/pg/migrate.ts runs them): the baseline of
 * the first release, then whatever changed since. One file per migration, named
 * `NNNN_what.ts`; a released migration is never edited, only followed.
 *
 * @module
 */
import type { PgMigration } from "../migrate.ts";
import { baseline } from "./0001_baseline.ts";
import { people } from "./0002_people.ts";
import { signIn } from "./0003_sign_in.ts";
import { audit } from "./0004_audit.ts";

/** The PostgreSQL schema, step by step. */
export const PG_MIGRATIONS: readonly PgMigration[] = [baseline, people, signIn, audit];
