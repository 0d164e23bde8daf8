/**
 * The port of the owner console's server-side sessions, keyed by the SHA-256 of the cookie
 * secret (src/console/sessions.ts decides lifetimes and checks; this stores).
 *
 * @module
 */

/** A signed-in console session; the cookie holds a secret whose SHA-256 names the row. */
export interface ConsoleSession {
  /** The owner's user id (the vault user of the token). */
  userId: string;
  /** The owner token it was made from; the session ends when that token is revoked. */
  tokenId: string;
  /** The CSRF token every state-changing request of this session must carry. */
  csrf: string;
  /** Epoch milliseconds of sign-in (the absolute expiry counts from here). */
  createdAt: number;
  /** Epoch milliseconds of the latest request (the idle expiry counts from here). */
  seenAt: number;
}

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
  create(idHash: string, row: ConsoleSession, ttlMs: number): Promise<void>;

  /** The session `idHash`, or null (never created, deleted, or forgotten after its ttl). */
  get(idHash: string): Promise<ConsoleSession | null>;

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
