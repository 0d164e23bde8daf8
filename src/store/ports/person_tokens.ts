/**
 * The port of people's API tokens (`spt_<id>_<secret>`, and the owner tokens `init` made,
 * which became the first person's): named, scoped, with an optional expiry; only the SHA-256 of
 * the secret is kept. Checking a presented secret is src/people/person_tokens.ts's business.
 *
 * @module
 */

/**
 * What a token may do, never more than its person's role allows: `records:read`,
 * `records:write` (record edits and the quarantine), `forms:write`, `webhooks:write`,
 * `relay:queue` (a vault worker reading queues), `admin` (people and the instance).
 */
export type Scope =
  | "records:read"
  | "records:write"
  | "forms:write"
  | "webhooks:write"
  | "relay:queue"
  | "admin";

/** Every scope, in the order tokens list them. */
export const SCOPES: readonly Scope[] = [
  "records:read",
  "records:write",
  "forms:write",
  "webhooks:write",
  "relay:queue",
  "admin",
];

/** An API token of a person. */
export interface PersonToken {
  id: string;
  personId: string;
  /** The person's name for it ("laptop CLI", "vault worker 2"). */
  name: string;
  scopes: Scope[];
  /** Lowercase hex SHA-256 of the secret part. */
  secretHash: string;
  createdAt: string;
  /** After this time the token is refused; null: never. */
  expiresAt: string | null;
  /** Last accepted use, to the minute; null: never used. */
  lastUsedAt: string | null;
}

/**
 * Storage of people's tokens.
 *
 * @example
 * ```ts
 * await tokens.save(token);
 * await tokens.revoke(token.id); // the token, now gone
 * ```
 */
export interface PersonTokensPort {
  /** Stores a token (a new one, or one replaced under its id). */
  save(token: PersonToken): Promise<void>;

  /** The token `id`, or null (never made, or revoked). */
  get(id: string): Promise<PersonToken | null>;

  /** Every token of a person, newest first. */
  list(personId: string): Promise<PersonToken[]>;

  /** Deletes token `id` (idempotent); answers what it was, or null. */
  revoke(id: string): Promise<PersonToken | null>;

  /** Records a use at `at` (ISO time); a store may skip writes less than a minute apart. */
  touch(id: string, at: string): Promise<void>;
}
