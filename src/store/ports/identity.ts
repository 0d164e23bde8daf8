/**
 * The identity port: users, API tokens (owner and admin), recipient databases with their
 * fingerprint routing, and registration challenges.
 *
 * Tokens are stored by id with a hash of their secret; checking a presented secret is the
 * caller's business (src/auth/tokens.ts, in constant time). A PostgreSQL implementation maps
 * each method to one statement or one transaction.
 *
 * @module
 */
import type { ChallengeRow, DatabaseRow, TokenRow, UserRow } from "../rows.ts";

export type { ChallengeRow, DatabaseRow, TokenRow, UserRow };

/** Who registered a recipient key: its user and database. */
export interface RecipientRoute {
  userId: string;
  dbId: string;
}

/** What completing a registration came to. */
export type RegistrationOutcome =
  /** The database and its route are stored; the challenge is consumed. */
  | "registered"
  /** The recipient key was registered meanwhile (by anyone); nothing changed. */
  | "key_registered"
  /** The challenge was consumed or changed meanwhile; nothing changed. */
  | "challenge_gone";

/** Storage of users, tokens, databases and registration challenges. */
export interface IdentityPort {
  /**
   * Stores a new user and its first token in one atomic write; false (nothing written) when a
   * user with that id exists already.
   */
  createUser(user: UserRow, token: TokenRow): Promise<boolean>;
  /** Stores a token (an admin token, or another owner token); overwrites a token of that id. */
  saveToken(token: TokenRow): Promise<void>;
  /** The token with id `tokenId`, or null. */
  getToken(tokenId: string): Promise<TokenRow | null>;
  /** The user `userId`, or null. */
  getUser(userId: string): Promise<UserRow | null>;
  /** The databases of `userId`, ordered by database id. */
  listDatabases(userId: string): Promise<DatabaseRow[]>;
  /** Who registered the recipient key with fingerprint `fingerprint`, or null. */
  recipientOwner(fingerprint: string): Promise<RecipientRoute | null>;
  /** The fingerprints of every registered recipient key, in fingerprint order. */
  listRecipients(): Promise<string[]>;
  /**
   * Stores a registration challenge; it stops being readable after `challenge.expiresAt`
   * (epoch ms) at the latest (an implementation may drop it then).
   */
  saveChallenge(challenge: ChallengeRow): Promise<void>;
  /** The unexpired challenge `challengeId`, or null. */
  getChallenge(challengeId: string): Promise<ChallengeRow | null>;
  /**
   * Atomically: consumes challenge `challenge.id` (it must be stored unchanged), stores `db`
   * and routes its fingerprint to it, provided no one registered the fingerprint before.
   * Two registrations of one key at once: exactly one is `"registered"`.
   */
  completeRegistration(challenge: ChallengeRow, db: DatabaseRow): Promise<RegistrationOutcome>;
}
