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

/** A registered user of the relay. */
export interface User {
  id: string;
  name: string;
  createdAt: string;
}

/** An API token: only the SHA-256 of its secret part is kept. */
export interface ApiToken {
  id: string;
  kind: "owner" | "admin";
  /** Owner tokens act for this user; admin tokens have none. */
  userId: string | null;
  /** Lowercase hex SHA-256 of the secret part. */
  secretHash: string;
  createdAt: string;
}

/** A database: one recipient X25519 key of a user. */
export interface RelayDatabase {
  id: string;
  userId: string;
  name: string;
  /** Standard base64 of the 32-byte X25519 public key. */
  publicKey: string;
  /** Lowercase hex SHA-256 of the raw public key: the routing key. */
  fingerprint: string;
  createdAt: string;
}

/** A pending proof-of-possession challenge for a recipient key. */
export interface KeyChallenge {
  id: string;
  userId: string;
  name: string;
  publicKey: string;
  fingerprint: string;
  /** Lowercase hex SHA-256 of the challenge secret. */
  answerHash: string;
  expiresAt: number;
}

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
  createUser(user: User, token: ApiToken): Promise<boolean>;
  /** Stores a token (an admin token, or another owner token); overwrites a token of that id. */
  saveToken(token: ApiToken): Promise<void>;
  /** Deletes the token `tokenId` (idempotent): it stands for nobody from then on. */
  deleteToken(tokenId: string): Promise<void>;
  /** The token with id `tokenId`, or null. */
  getToken(tokenId: string): Promise<ApiToken | null>;
  /** The user `userId`, or null. */
  getUser(userId: string): Promise<User | null>;
  /** The databases of `userId`, ordered by database id. */
  listDatabases(userId: string): Promise<RelayDatabase[]>;
  /** Who registered the recipient key with fingerprint `fingerprint`, or null. */
  recipientOwner(fingerprint: string): Promise<RecipientRoute | null>;
  /** The fingerprints of every registered recipient key, in fingerprint order. */
  listRecipients(): Promise<string[]>;
  /**
   * Stores a registration challenge; it stops being readable after `challenge.expiresAt`
   * (epoch ms) at the latest (an implementation may drop it then).
   */
  saveChallenge(challenge: KeyChallenge): Promise<void>;
  /** The unexpired challenge `challengeId`, or null. */
  getChallenge(challengeId: string): Promise<KeyChallenge | null>;
  /**
   * Atomically: consumes challenge `challenge.id` (it must be stored unchanged), stores `db`
   * and routes its fingerprint to it, provided no one registered the fingerprint before.
   * Two registrations of one key at once: exactly one is `"registered"`.
   */
  completeRegistration(challenge: KeyChallenge, db: RelayDatabase): Promise<RegistrationOutcome>;
}
