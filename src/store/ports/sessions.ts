/**
 * The port of the owner console's server-side sessions, keyed by the SHA-256 of the cookie
 * secret (src/console/sessions.ts decides lifetimes and checks; this stores).
 *
 * @module
 */
import type { ConsoleSessionRow } from "../rows.ts";

export type { ConsoleSessionRow };

/**
 * Storage of console sessions.
 *
 * @example
 * ```ts
 * await sessions.create(idHash, row, 3600_000);
 * await sessions.get(idHash); // row
 * ```
 */
export interface SessionsPort {
  /**
   * Saves a new session under `idHash` for its user (atomically with the user's list of
   * sessions). The store may forget it once `ttlMs` have passed; readers check times anyway.
   */
  create(idHash: string, row: ConsoleSessionRow, ttlMs: number): Promise<void>;

  /** The session `idHash`, or null (never created, deleted, or forgotten after its ttl). */
  get(idHash: string): Promise<ConsoleSessionRow | null>;

  /**
   * Sets a session's `seenAt` and its new ttl, only when it still exists with an older
   * `seenAt` (a deleted session is not brought back). True when written.
   */
  touch(idHash: string, seenAt: number, ttlMs: number): Promise<boolean>;

  /** Deletes one session of `userId` (idempotent). */
  delete(userId: string, idHash: string): Promise<void>;

  /** Deletes every session of `userId`; returns how many there were. */
  deleteAll(userId: string): Promise<number>;
}
