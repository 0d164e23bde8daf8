/**
 * The quarantine port on PostgreSQL: a row per quarantined envelope in `vault_quarantine`,
 * its sealed box in the same row (`bytea`), so row and box are written and removed together.
 *
 * @module
 */
import { partCount } from "../ports/limits.ts";
import type { QuarantinedEnvelope, QuarantineEntry, QuarantinePort } from "../ports/quarantine.ts";
import type { WritePart } from "../ports/write_part.ts";
import { PgCheckFailedError } from "./check_failed.ts";
import { json } from "./json.ts";
import type { Sql } from "./db.ts";
import { transaction } from "./transaction.ts";
import { pgPart, runPgParts } from "./write_part.ts";

interface Stored {
  data: QuarantineEntry;
  quarantined_at: string;
  box_bytes: number;
}

/** The port's row of a stored one (`parts` as Deno KV would count the box's). */
function rowOf(stored: Stored): QuarantinedEnvelope {
  return {
    ...stored.data,
    quarantinedAt: stored.quarantined_at,
    parts: partCount(stored.box_bytes),
  };
}

/**
 * The PostgreSQL quarantine store.
 *
 * @example
 * ```ts
 * const quarantine = new PgQuarantine(sql);
 * await quarantine.save(entry, sealedBox, null);
 * ```
 */
export class PgQuarantine implements QuarantinePort {
  constructor(private sql: Sql) {}

  async save(entry: QuarantineEntry, ciphertext: Uint8Array, ack: WritePart | null) {
    await transaction(this.sql, async (tx) => {
      await tx`
        insert into vault_quarantine (id, data, quarantined_at, box_bytes, box)
        values (${entry.id}, ${json(entry)}::jsonb, ${new Date().toISOString()},
          ${ciphertext.length}, ${ciphertext})
        on conflict (id) do update set data = excluded.data`;
      if (ack) await runPgParts(tx, [ack]);
    });
  }

  async get(id: string): Promise<QuarantinedEnvelope | null> {
    const rows = await this.sql<Stored[]>`
      select data, quarantined_at, box_bytes from vault_quarantine where id = ${id}`;
    return rows[0] ? rowOf(rows[0]) : null;
  }

  async list(): Promise<QuarantinedEnvelope[]> {
    const rows = await this.sql<Stored[]>`
      select data, quarantined_at, box_bytes from vault_quarantine order by id`;
    return rows.map(rowOf);
  }

  async count(cap: number): Promise<number> {
    const [{ n }] = await this.sql<{ n: number }[]>`
      select count(*)::int as n from (select 1 from vault_quarantine limit ${cap}) as capped`;
    return n;
  }

  async ciphertext(id: string): Promise<Uint8Array | null> {
    const rows = await this.sql<{ box: Uint8Array }[]>`
      select box from vault_quarantine where id = ${id}`;
    return rows[0] ? new Uint8Array(rows[0].box) : null;
  }

  removal(id: string, _ciphertextBytes: number): WritePart {
    return pgPart(async (tx) => {
      await tx`delete from vault_quarantine where id = ${id}`;
    });
  }

  async discard(id: string, part: WritePart | null): Promise<boolean> {
    try {
      await transaction(this.sql, async (tx) => {
        // The part first: it locks what it checks before the row, as ingest's writes do.
        if (part) await runPgParts(tx, [part]);
        const removed = await tx`delete from vault_quarantine where id = ${id} returning id`;
        if (removed.length === 0) throw new PgCheckFailedError(`No quarantined envelope ${id}`);
      });
      return true;
    } catch (err) {
      if (err instanceof PgCheckFailedError) return false;
      throw err;
    }
  }
}
