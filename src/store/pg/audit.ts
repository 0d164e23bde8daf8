/**
 * The audit port on PostgreSQL: entries in `audit_entries`, the head and the last checkpoint in
 * the one row of `audit_state`. Appends and prunes lock that row first, so appends from every
 * process are serialised: each is built on the head it holds, and `seq` stays gapless.
 *
 * @module
 */
import {
  AUDIT_LIST_MAX,
  type AuditCheckpoint,
  type AuditEntry,
  type AuditHead,
  type AuditPort,
  type AuditQuery,
  checkNext,
  checkPrune,
} from "../ports/audit.ts";
import type { Sql, Tx } from "./db.ts";
import { json } from "./json.ts";
import { transaction } from "./transaction.ts";

interface StateRow {
  head_seq: string | null;
  head_hash: string | null;
  checkpoint: AuditCheckpoint | null;
}

/**
 * The PostgreSQL audit log.
 *
 * @example
 * ```ts
 * const audit = new PgAudit(sql);
 * await audit.head(); // null on a new database
 * ```
 */
export class PgAudit implements AuditPort {
  constructor(private sql: Sql) {}

  async append(build: (prev: AuditHead | null) => AuditEntry): Promise<AuditEntry> {
    return await transaction(this.sql, async (tx) => {
      const prev = headOf(await lockState(tx));
      const entry = build(prev);
      checkNext(prev, entry);
      const { event } = entry;
      await tx`
        insert into audit_entries (seq, person_id, database_id, action, entry)
        values (${entry.seq}, ${event.personId}, ${event.databaseId ?? null}, ${event.action},
          ${json(entry)}::json)`;
      await tx`update audit_state set head_seq = ${entry.seq}, head_hash = ${entry.hash}
        where id = 1`;
      return entry;
    });
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    const limit = Math.min(query.limit, AUDIT_LIST_MAX);
    if (limit <= 0) return [];
    const sql = this.sql;
    const rows = await sql<{ entry: AuditEntry }[]>`
      select entry from audit_entries
      where seq > ${query.after ?? 0}
        ${query.before === undefined ? sql`` : sql`and seq < ${query.before}`}
        ${query.personId === undefined ? sql`` : sql`and person_id = ${query.personId}`}
        ${query.databaseId === undefined ? sql`` : sql`and database_id = ${query.databaseId}`}
        ${query.action === undefined ? sql`` : sql`and action = ${query.action}`}
      order by seq ${query.newestFirst ? sql`desc` : sql`asc`} limit ${limit}`;
    return rows.map((r) => r.entry);
  }

  async head(): Promise<AuditHead | null> {
    const rows = await this.sql<StateRow[]>`
      select head_seq, head_hash, checkpoint from audit_state where id = 1`;
    return headOf(rows[0]);
  }

  async checkpoint(): Promise<AuditCheckpoint | null> {
    const rows = await this.sql<StateRow[]>`select checkpoint from audit_state where id = 1`;
    return rows[0]?.checkpoint ?? null;
  }

  async prune(beforeSeq: number, checkpoint: AuditCheckpoint): Promise<number> {
    return await transaction(this.sql, async (tx) => {
      const state = await lockState(tx);
      const [last] = await tx<{ entry: AuditEntry }[]>`
        select entry from audit_entries where seq = ${beforeSeq - 1}`;
      const from = checkPrune(beforeSeq, checkpoint, state.checkpoint, last?.entry ?? null);
      const deleted = await tx`delete from audit_entries where seq >= ${from}
        and seq < ${beforeSeq}`;
      await tx`update audit_state set checkpoint = ${json(checkpoint)}::json where id = 1`;
      return deleted.count;
    });
  }
}

async function lockState(tx: Tx): Promise<StateRow> {
  const [row] = await tx<StateRow[]>`
    select head_seq, head_hash, checkpoint from audit_state where id = 1 for update`;
  return row;
}

function headOf(row: StateRow | undefined): AuditHead | null {
  if (!row || row.head_seq === null || row.head_hash === null) return null;
  return { seq: Number(row.head_seq), hash: row.head_hash };
}
