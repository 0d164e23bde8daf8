/**
 * The port of the console's server-side sessions, one per signed-in person and browser, keyed
 * by the SHA-256 of the cookie secret (src/console/sessions.ts decides lifetimes and checks;
 * this stores).
 *
 * @module
 */

/** A signed-in console session; the cookie holds a secret whose SHA-256 names the row. */
export interface ConsoleSession {
  /** The person signed in (src/store/ports/people.ts); the session ends when they are removed. */
  personId: string;
  /** The CSRF token every state-changing request of this session must carry. */
  csrf: string;
  /** Epoch milliseconds of sign-in (the absolute expiry counts from here). */
  createdAt: number;
  /** Epoch milliseconds of the latest request (the idle expiry counts from here). */
  seenAt: number;
  /** How the person signed in. */
  method: "password" | "passkey";
  /** Whether a second factor was checked at sign-in. */
  secondFactor: boolean;
  /** The client address at sign-in (shown on the Security page). */
  address: string;
  /** The browser's User-Agent at sign-in, at most 200 characters. */
  agent: string;
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
   * Saves a new session under `idHash` for its person (atomically with the person's list of
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

  /** Deletes one session of `personId` (idempotent). */
  delete(personId: string, idHash: string): Promise<void>;

  /** Deletes every session of `personId`; returns how many there were. */
  deleteAll(personId: string): Promise<number>;

  /** The live sessions of `personId` with their keys, oldest sign-in first. */
  list(personId: string): Promise<{ idHash: string; session: ConsoleSession }[]>;
}
