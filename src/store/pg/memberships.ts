/**
 * The memberships port on PostgreSQL: table `memberships`, keyed by (database, person) and
 * indexed by person. Every write runs in a transaction that first locks the database's owner
 * rows `for update` (in person order), so two writes that change who owns one database run one
 * after the other, in any process: of two demotions of its two owners, the second finds one
 * owner left and is refused.
 *
 * @module
 */
import type { Membership, MembershipsPort, Role } from "../ports/memberships.ts";
import type { Sql, Tx } from "./db.ts";
import { transaction } from "./transaction.ts";

interface MembershipColumns {
  database_id: string;
  person_id: string;
  role: Role;
  since: Date;
}

function membershipOf(r: MembershipColumns): Membership {
  return {
    databaseId: r.database_id,
    personId: r.person_id,
    role: r.role,
    since: r.since.toISOString(),
  };
}

/** Locks the owner rows of `databaseId`; answers the owners' ids. */
async function lockOwners(tx: Tx, databaseId: string): Promise<string[]> {
  const rows = await tx<{ person_id: string }[]>`
    select person_id from memberships where database_id = ${databaseId} and role = 'owner'
    order by person_id for update`;
  return rows.map((r) => r.person_id);
}

/** Whether `personId` is the only one of `owners`. */
const onlyOwner = (owners: string[], personId: string) =>
  owners.length === 1 && owners[0] === personId;

/**
 * Memberships in PostgreSQL.
 *
 * @example
 * ```ts
 * const memberships = new PgMemberships(sql);
 * await memberships.remove(databaseId, personId); // "ok", "last_owner" or "missing"
 * ```
 */
export class PgMemberships implements MembershipsPort {
  constructor(private readonly sql: Sql) {}

  async get(databaseId: string, personId: string): Promise<Membership | null> {
    const [row] = await this.sql<MembershipColumns[]>`
      select * from memberships where database_id = ${databaseId} and person_id = ${personId}`;
    return row ? membershipOf(row) : null;
  }

  async ofPerson(personId: string): Promise<Membership[]> {
    const rows = await this.sql<MembershipColumns[]>`
      select * from memberships where person_id = ${personId} order by database_id`;
    return rows.map(membershipOf);
  }

  async ofDatabase(databaseId: string): Promise<Membership[]> {
    const rows = await this.sql<MembershipColumns[]>`
      select * from memberships where database_id = ${databaseId} order by person_id`;
    return rows.map(membershipOf);
  }

  async put(m: Membership): Promise<"ok" | "last_owner"> {
    return await transaction(this.sql, async (tx) => {
      const owners = await lockOwners(tx, m.databaseId);
      if (m.role !== "owner" && onlyOwner(owners, m.personId)) return "last_owner";
      // The first `since` is kept across role changes.
      await tx`
        insert into memberships (database_id, person_id, role, since)
        values (${m.databaseId}, ${m.personId}, ${m.role}, ${m.since})
        on conflict (database_id, person_id) do update set role = excluded.role`;
      return "ok";
    });
  }

  async remove(databaseId: string, personId: string): Promise<"ok" | "last_owner" | "missing"> {
    return await transaction(this.sql, async (tx) => {
      const owners = await lockOwners(tx, databaseId);
      if (onlyOwner(owners, personId)) return "last_owner";
      const removed = await tx`
        delete from memberships where database_id = ${databaseId} and person_id = ${personId}
        returning person_id`;
      return removed.length === 1 ? "ok" : "missing";
    });
  }
}
