/**
 * The tickets port on PostgreSQL: table `tickets`; expired rows read as absent and are pruned
 * as new tickets are saved. Consuming is one `delete … returning` of an unexpired row of the
 * kind asked: of two consumers at once, in any process, exactly one deletes it.
 *
 * @module
 */
import type { Ticket, TicketKind, TicketsPort } from "../ports/tickets.ts";
import type { Sql } from "./db.ts";
import { json } from "./json.ts";

/** Expired tickets pruned per saved ticket at most (bounded work per save). */
const PRUNE = 100;

interface TicketColumns {
  kind: TicketKind;
  person_id: string | null;
  data: Record<string, unknown>;
  expires_at_ms: number;
}

/**
 * Tickets in PostgreSQL.
 *
 * @example
 * ```ts
 * const tickets = new PgTickets(sql);
 * await tickets.save(idHash, ticket);
 * ```
 */
export class PgTickets implements TicketsPort {
  constructor(private readonly sql: Sql) {}

  async save(idHash: string, t: Ticket): Promise<void> {
    await this.sql`
      insert into tickets (id_hash, kind, person_id, data, expires_at_ms)
      values (${idHash}, ${t.kind}, ${t.personId}, ${json(t.data)}::jsonb, ${t.expiresAt})
      on conflict (id_hash) do update set kind = excluded.kind, person_id = excluded.person_id,
        data = excluded.data, expires_at_ms = excluded.expires_at_ms`;
    await this.sql`delete from tickets where id_hash in (
      select id_hash from tickets where expires_at_ms < ${Date.now()} limit ${PRUNE})`;
  }

  async consume(idHash: string, kind: TicketKind): Promise<Ticket | null> {
    const [row] = await this.sql<TicketColumns[]>`
      delete from tickets
      where id_hash = ${idHash} and kind = ${kind} and expires_at_ms >= ${Date.now()}
      returning kind, person_id, data, expires_at_ms`;
    return row
      ? { kind: row.kind, personId: row.person_id, data: row.data, expiresAt: row.expires_at_ms }
      : null;
  }
}
