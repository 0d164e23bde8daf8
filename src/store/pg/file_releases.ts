/**
 * The file releases port on PostgreSQL: rows in `vault_file_releases`, written by the records
 * store (record_rows.ts) in the transaction of the change that dropped the files.
 *
 * @module
 */
import type { FileRelease, FileReleasesPort } from "../ports/file_releases.ts";
import type { Sql } from "./db.ts";

/**
 * The PostgreSQL store of pending file releases.
 *
 * @example
 * ```ts
 * const releases = new PgFileReleases(sql);
 * await releases.pending(100);
 * ```
 */
export class PgFileReleases implements FileReleasesPort {
  constructor(private sql: Sql) {}

  async pending(limit: number, after?: string): Promise<FileRelease[]> {
    const rows = await this.sql<
      { id: string; formId: string; recordId: string; hashes: string[] }[]
    >`
      select id, form_id as "formId", record_id as "recordId", hashes
      from vault_file_releases
      where ${after === undefined ? this.sql`true` : this.sql`id > ${after}`}
      order by id limit ${limit}`;
    return rows.map((r) => ({ ...r }));
  }

  async done(id: string): Promise<void> {
    await this.sql`delete from vault_file_releases where id = ${id}`;
  }
}
