/**
 * The tickets port on Deno KV: a ticket under `peopleKeys.ticket`, expiring with it (a KV
 * expiry is lazy, so an expired ticket also reads as absent). Consuming deletes it with a
 * versionstamp check: of two consumers at once, exactly one commits.
 *
 * @module
 */
import { peopleKeys } from "./keys.ts";
import { KvWrite } from "./write.ts";
import type { Ticket, TicketKind, TicketsPort } from "../ports/tickets.ts";

/**
 * Tickets in Deno KV.
 *
 * @example
 * ```ts
 * const tickets = new KvTickets(kv);
 * await tickets.consume(idHash, "invite"); // the ticket, once
 * ```
 */
export class KvTickets implements TicketsPort {
  constructor(private readonly kv: Deno.Kv) {}

  async save(idHash: string, ticket: Ticket): Promise<void> {
    const expireIn = Math.max(1, ticket.expiresAt - Date.now());
    await this.kv.set(peopleKeys.ticket(idHash), ticket, { expireIn });
  }

  async consume(idHash: string, kind: TicketKind): Promise<Ticket | null> {
    const entry = await this.kv.get<Ticket>(peopleKeys.ticket(idHash));
    const ticket = entry.value;
    if (!ticket || ticket.kind !== kind || ticket.expiresAt < Date.now()) return null;
    const taken = await new KvWrite().check(entry).delete(entry.key).commit(this.kv);
    return taken ? ticket : null;
  }
}
