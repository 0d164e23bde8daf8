/**
 * One-time tickets as people hold them: a random secret (32 bytes, base64url) given out once,
 * whose SHA-256 names the ticket in the tickets port. A set-password link, a sign-in waiting for
 * its second factor and a passkey ceremony are each one ticket, used at most once.
 *
 * @module
 */
import { sha256Hex } from "../auth/tokens.ts";
import type { Ticket, TicketKind, TicketsPort } from "../store/ports/tickets.ts";

/** What a ticket secret looks like (anything else is no ticket, without a lookup). */
const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * Saves a ticket of `kind` valid `validMs` from `now`; answers its secret (to give out once).
 *
 * @example
 * ```ts
 * const secret = await issueTicket(tickets, "set_password", person.id, {}, 24 * 3600_000);
 * ```
 */
export async function issueTicket(
  tickets: Pick<TicketsPort, "save">,
  kind: TicketKind,
  personId: string | null,
  data: Record<string, unknown>,
  validMs: number,
  now: number = Date.now(),
): Promise<string> {
  const secret = crypto.getRandomValues(new Uint8Array(32)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
  await tickets.save(await sha256Hex(secret), { kind, personId, data, expiresAt: now + validMs });
  return secret;
}

/**
 * Uses up the ticket of `kind` whose secret was presented: the ticket, or null (not a secret,
 * unknown, of another kind, used or expired).
 *
 * @example
 * ```ts
 * const ticket = await consumeTicket(tickets, form.ticket, "set_password");
 * ```
 */
export async function consumeTicket(
  tickets: Pick<TicketsPort, "consume">,
  secret: unknown,
  kind: TicketKind,
): Promise<Ticket | null> {
  const idHash = await ticketHashOf(secret);
  return idHash ? await tickets.consume(idHash, kind) : null;
}

/**
 * The store key of a presented ticket secret, or null when it cannot be one.
 *
 * @example
 * ```ts
 * const idHash = await ticketHashOf(cookie);
 * ```
 */
export async function ticketHashOf(secret: unknown): Promise<string | null> {
  return typeof secret === "string" && SECRET.test(secret) ? await sha256Hex(secret) : null;
}

/**
 * Puts a used ticket back under its secret (an invitation its taker could not use, so that the
 * right person still can).
 *
 * @example
 * ```ts
 * await returnTicket(tickets, secret, ticket);
 * ```
 */
export async function returnTicket(
  tickets: Pick<TicketsPort, "save">,
  secret: string,
  ticket: Ticket,
): Promise<void> {
  await tickets.save(await sha256Hex(secret), ticket);
}
