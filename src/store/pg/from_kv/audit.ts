/**
 * Copies the audit log from a Deno KV store into PostgreSQL, for `sealpost migrate-store`:
 * every kept entry as it is (so the chain and earlier exports' signed heads still verify), then
 * the head and the checkpoint of the last prune, set only on a database whose log is still
 * empty. Idempotent: run again, it copies nothing.
 *
 * @module
 */
import { KvAudit } from "../../kv/audit.ts";
import { AUDIT_LIST_MAX } from "../../ports/audit.ts";
import type { Sql } from "../db.ts";
import { json } from "../json.ts";

/**
 * Copies the audit log of `kv` into the database of `sql` (migrated already); answers the
 * entries newly copied.
 *
 * @example
 * ```ts
 * const { entries } = await copyAuditFromKv(kv, "./data", sql);
 * ```
 */
export async function copyAuditFromKv(
  kv: Deno.Kv,
  _dataDir: string,
  sql: Sql,
): Promise<Record<string, number>> {
  const source = new KvAudit(kv);
  let entries = 0;
  for (let after = 0;;) {
    const page = await source.list({ after, limit: AUDIT_LIST_MAX });
    if (page.length === 0) break;
    const rows = page.map((entry) => ({
      seq: entry.seq,
      person_id: entry.event.personId,
      database_id: entry.event.databaseId ?? null,
      action: entry.event.action,
      entry,
    }));
    const inserted = await sql`
      insert into audit_entries (seq, person_id, database_id, action, entry)
      select * from json_to_recordset(${JSON.stringify(rows)}::text::json)
        as x(seq bigint, person_id text, database_id text, action text, entry json)
      on conflict do nothing returning 1 as n`;
    entries += inserted.length;
    after = page.at(-1)!.seq;
  }
  const head = await source.head();
  const checkpoint = await source.checkpoint();
  if (head) {
    await sql`
      update audit_state set head_seq = ${head.seq}, head_hash = ${head.hash},
        checkpoint = ${checkpoint ? json(checkpoint) : null}::json
      where id = 1 and head_seq is null`;
  }
  return { entries };
}
