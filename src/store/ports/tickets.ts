/**
 * The port of tickets: one-time links and short-lived challenges (setting a password, accepting
 * an invitation, a WebAuthn ceremony, a sign-in waiting for its second factor), stored by the
 * SHA-256 of the secret the person holds, used at most once.
 *
 * @module
 */

/** What a ticket is for. */
export type TicketKind = "set_password" | "invite" | "webauthn" | "second_factor";

/** A one-time ticket. */
export interface Ticket {
  kind: TicketKind;
  /** The person it is for; null when there is none yet (an invitation to a new email). */
  personId: string | null;
  /** What the step needs (an invited email and role, a WebAuthn challenge, …); never secrets. */
  data: Record<string, unknown>;
  /** Epoch milliseconds after which it is refused (and may be forgotten). */
  expiresAt: number;
}

/**
 * Storage of tickets.
 *
 * @example
 * ```ts
 * await tickets.save(idHash, { kind: "set_password", personId, data: {}, expiresAt });
 * await tickets.consume(idHash, "set_password"); // the ticket, once; then null
 * ```
 */
export interface TicketsPort {
  /** Stores a ticket under the SHA-256 of its secret (hex). */
  save(idHash: string, ticket: Ticket): Promise<void>;

  /**
   * Takes the ticket `idHash` of kind `kind`, atomically: of two consumers at once exactly one
   * gets it. Null when there is none of that kind, or it has expired.
   */
  consume(idHash: string, kind: TicketKind): Promise<Ticket | null>;
}
