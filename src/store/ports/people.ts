/**
 * The port of people: the persons who sign in to the vault's console and own API tokens. A
 * person is vault-side only; the relay never learns who the people are (it knows only the
 * accounts, src/store/ports/identity.ts, whose tokens read queues and publish manifests).
 *
 * The email is the login name: kept lowercase, unique across the instance, atomically.
 *
 * @module
 */

/** A person of the instance. */
export interface Person {
  id: string;
  /** The login name: lowercase, unique. */
  email: string;
  /** The display name others see (members lists, the audit log). */
  name: string;
  /** The Argon2id hash as a PHC string; null until the person sets a password. */
  passwordHash: string | null;
  /** May manage people and the instance (`sealpost user add`, requiring second factors, …). */
  instanceAdmin: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * Storage of people.
 *
 * @example
 * ```ts
 * await people.create(person); // "created", or "email_taken"
 * await people.byEmail("ada@example.org");
 * ```
 */
export interface PeoplePort {
  /** Stores a new person; "email_taken" (nothing written) when another has that email or id. */
  create(person: Person): Promise<"created" | "email_taken">;

  /** The person `id`, or null. */
  get(id: string): Promise<Person | null>;

  /** The person whose email is `email` (compared lowercase), or null. */
  byEmail(email: string): Promise<Person | null>;

  /** Every person, ordered by email. */
  list(): Promise<Person[]>;

  /**
   * Changes person `id` optimistically: `change` gets the stored person and returns the new
   * one (its `id` unchanged), written only if the row has not changed since, else `change`
   * runs again. A changed email is re-indexed in the same write; "email_taken" when another
   * person has it (nothing written). Null when there is no such person.
   */
  update(id: string, change: (person: Person) => Person): Promise<Person | "email_taken" | null>;
}
