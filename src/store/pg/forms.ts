/**
 * The forms port on PostgreSQL: a row per form in `vault_forms` (with a revision for
 * optimistic updates) and its archived versions in `vault_form_versions` (cached in memory:
 * they never change). Rows and versions keep Deno KV's value limit (64 KiB), so a form fits
 * either backend.
 *
 * @module
 */
import { FormVersionCache } from "../ports/form_version_cache.ts";
import type { FormChange, FormHead, FormsPort, FormVersion } from "../ports/forms.ts";
import { PgCheckFailedError } from "./check_failed.ts";
import { checkRowSize, json } from "./json.ts";
import type { Sql, Tx } from "./db.ts";
import { transaction } from "./transaction.ts";

/** Tries of an optimistic update before "conflict". */
const TRIES = 5;

/**
 * The PostgreSQL forms store.
 *
 * @example
 * ```ts
 * const forms = new PgForms(sql);
 * await forms.create(row, version);
 * ```
 */
export class PgForms implements FormsPort {
  #versions = new FormVersionCache();

  constructor(private sql: Sql) {}

  async create(row: FormHead, version: FormVersion): Promise<boolean> {
    checkRowSize(row);
    checkRowSize(version);
    return await transaction(this.sql, async (tx) => {
      const added = await tx`
        insert into vault_forms (form_id, data) values (${row.formId}, ${json(row)}::json)
        on conflict do nothing returning form_id`;
      if (added.length === 0) return false;
      await this.#addVersion(tx, version);
      return true;
    });
  }

  async get(formId: string): Promise<FormHead | null> {
    const rows = await this.sql<{ data: FormHead }[]>`
      select data from vault_forms where form_id = ${formId}`;
    return rows[0]?.data ?? null;
  }

  async list(): Promise<FormHead[]> {
    const rows = await this.sql<{ data: FormHead }[]>`
      select data from vault_forms order by form_id`;
    return rows.map((r) => r.data);
  }

  async version(formId: string, schemaVersion: number): Promise<FormVersion | null> {
    const cached = this.#versions.get(formId, schemaVersion);
    if (cached) return cached;
    const rows = await this.sql<{ data: FormVersion }[]>`
      select data from vault_form_versions
      where form_id = ${formId} and schema_version = ${schemaVersion}`;
    return this.#versions.keep(rows[0]?.data ?? null);
  }

  async versions(formId: string): Promise<FormVersion[]> {
    const rows = await this.sql<{ data: FormVersion }[]>`
      select data from vault_form_versions where form_id = ${formId} order by schema_version`;
    return rows.map((r) => r.data);
  }

  async update(
    formId: string,
    change: (row: FormHead) => FormChange | Promise<FormChange>,
  ): Promise<FormChange | null | "conflict"> {
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const [current] = await this.sql<{ data: FormHead; rev: number }[]>`
        select data, rev from vault_forms where form_id = ${formId}`;
      if (!current) return null;
      const next = await change(current.data);
      checkRowSize(next.row);
      if (next.version) checkRowSize(next.version);
      try {
        await transaction(this.sql, async (tx) => {
          const updated = await tx`
            update vault_forms set data = ${json(next.row)}::json, rev = rev + 1
            where form_id = ${formId} and rev = ${current.rev} returning rev`;
          if (updated.length === 0) throw new PgCheckFailedError(`Form ${formId} changed`);
          if (next.version && !await this.#addVersion(tx, next.version)) {
            throw new PgCheckFailedError(`Version ${next.version.schemaVersion} exists`);
          }
        });
        return next;
      } catch (err) {
        if (!(err instanceof PgCheckFailedError)) throw err;
      }
    }
    return "conflict";
  }

  /** Adds an archived version; false (nothing written) when its number is taken. */
  async #addVersion(tx: Tx, version: FormVersion): Promise<boolean> {
    const added = await tx`
      insert into vault_form_versions (form_id, schema_version, data)
      values (${version.formId}, ${version.schemaVersion}, ${json(version)}::json)
      on conflict do nothing returning schema_version`;
    return added.length === 1;
  }
}
