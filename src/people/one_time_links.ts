/**
 * One-time links: a ticket (src/people/tickets.ts) whose secret is given out as a link, valid
 * 7 days, taken at most once. The secret travels in the link's fragment (`#…`), which browsers
 * never send to a server or a `Referer`; the page's island posts it
 * (src/web/islands/ticket_link.ts).
 *
 * - set a password: `${base}/console/set-password#<secret>` (a `set_password` ticket, 7 days);
 * - accept an invitation: `${base}/console/invitations#<secret>` (an `invite` ticket, 7 days).
 *
 * @module
 */
import type { TicketKind, TicketsPort } from "../store/ports/tickets.ts";
import { issueTicket } from "./tickets.ts";

/** How long a set-password link and an invitation stay valid: 7 days. */
export const LINK_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * Stores a ticket of `kind` for `personId`, valid {@link LINK_TTL_MS}; answers its secret
 * (never stored) and when it expires.
 *
 * @example
 * ```ts
 * const { secret } = await issueLink(tickets, "set_password", person.id, {});
 * console.log(setPasswordLink(baseUrl, secret));
 * ```
 */
export async function issueLink(
  tickets: Pick<TicketsPort, "save">,
  kind: TicketKind,
  personId: string | null,
  data: Record<string, unknown>,
  now: number = Date.now(),
): Promise<{ secret: string; expiresAt: number }> {
  const secret = await issueTicket(tickets, kind, personId, data, LINK_TTL_MS, now);
  return { secret, expiresAt: now + LINK_TTL_MS };
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
