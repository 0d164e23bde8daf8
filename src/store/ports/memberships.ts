/**
 * The port of database memberships: which person may do what with which database. Roles
 * order `owner` > `editor` > `viewer`; a database always keeps at least one owner.
 *
 * @module
 */

/** What a member may do: see src/people/access.ts for each route's need. */
export type Role = "owner" | "editor" | "viewer";

/** A person's role on a database. */
export interface Membership {
  databaseId: string;
  personId: string;
  role: Role;
  /** When the person became a member (kept across role changes). */
  since: string;
}

/**
 * Storage of memberships.
 *
 * @example
 * ```ts
 * await memberships.put({ databaseId, personId, role: "editor", since });
 * await memberships.ofPerson(personId); // [{ databaseId, role: "editor", ... }]
 * ```
 */
export interface MembershipsPort {
  /** The membership of `personId` on `databaseId`, or null. */
  get(databaseId: string, personId: string): Promise<Membership | null>;

  /** Every membership of a person, ordered by database id. */
  ofPerson(personId: string): Promise<Membership[]>;

  /** Every member of a database, ordered by person id. */
  ofDatabase(databaseId: string): Promise<Membership[]>;

  /**
   * Adds a member or changes their role, atomically: "last_owner" (nothing written) when it
   * would leave the database without an owner (of two demotions at once, at most one wins).
   */
  put(membership: Membership): Promise<"ok" | "last_owner">;

  /**
   * Removes a member, atomically: "last_owner" when they are its only owner, "missing" when
   * they are no member.
   */
  remove(databaseId: string, personId: string): Promise<"ok" | "last_owner" | "missing">;
}
