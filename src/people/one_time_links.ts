/**
 * One-time links: a random secret the person holds, its SHA-256 stored as a ticket (the tickets
 * port), taken at most once. The secret travels in the link's fragment (`#…`), which browsers
 * never send to a server or a `Referer`; the page's island posts it
 * (src/web/islands/ticket_link.ts).
 *
 * - set a password: `${base}/console/set-password#<secret>` (a `set_password` ticket, 7 days);
 * - accept an invitation: `${base}/console/invitations#<secret>` (an `invite` ticket, 7 days).
 *
 * @module
 */
import { newTokenParts, sha256Hex } from "../auth/tokens.ts";
import type { Ticket, TicketKind, TicketsPort } from "../store/ports/tickets.ts";

/** How long a set-password link and an invitation stay valid: 7 days. */
export const LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/** What a link's secret looks like: 32 random bytes, unpadded base64url. */
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Stores a ticket of `kind` for `personId` and answers its secret (never stored).
 *
 * @example
 * ```ts
 * const secret = await issueTicket(tickets, "set_password", person.id, {});
 * console.log(setPasswordLink(baseUrl, secret));
 * ```
 */
export async function issueTicket(
  tickets: Pick<TicketsPort, "save">,
  kind: TicketKind,
  personId: string | null,
  data: Record<string, unknown>,
  now: number = Date.now(),
): Promise<{ secret: string; expiresAt: number }> {
  // A token's secret part: 32 random bytes, unpadded base64url, and its SHA-256.
  const { secret, secretHash } = await newTokenParts();
  const expiresAt = now + LINK_TTL_MS;
  await tickets.save(secretHash, { kind, personId, data, expiresAt });
  return { secret, expiresAt };
}

/**
 * The ticket of `kind` a presented secret stands for, taken (single use); null for a malformed,
 * unknown, used or expired secret.
 *
 * @example
 * ```ts
 * const ticket = await takeTicket(tickets, secret, "invite"); // then null
 * ```
 */
export async function takeTicket(
  tickets: Pick<TicketsPort, "consume">,
  secret: string,
  kind: TicketKind,
): Promise<Ticket | null> {
  if (!SECRET_RE.test(secret)) return null;
  return await tickets.consume(await sha256Hex(secret), kind);
}

/**
 * Puts a taken ticket back under its secret (an invitation its taker could not use, so that
 * the right person still can).
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

/**
 * The set-password link of `secret` on the console at `baseUrl`.
 *
 * @example
 * ```ts
 * setPasswordLink("https://vault.example.org", secret); // ".../console/set-password#<secret>"
 * ```
 */
export function setPasswordLink(baseUrl: string, secret: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/console/set-password#${secret}`;
}

/**
 * The invitation link of `secret` on the console at `baseUrl`.
 *
 * @example
 * ```ts
 * invitationLink("https://vault.example.org", secret); // ".../console/invitations#<secret>"
 * ```
 */
export function invitationLink(baseUrl: string, secret: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/console/invitations#${secret}`;
}
