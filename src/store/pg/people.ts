/**
 * The people port on PostgreSQL: table `people`, whose unique `email` decides between two
 * people made with one email at once, in any process. An update locks the row (`for update`),
 * so a change always runs on the row as stored.
 *
 * @module
 */
import type { PeoplePort, Person } from "../ports/people.ts";
import type { Sql } from "./db.ts";
import { transaction } from "./transaction.ts";

/** PostgreSQL's code of a unique violation. */
const UNIQUE_VIOLATION = "23505";

interface PersonColumns {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  instance_admin: boolean;
  created_at: Date;
  updated_at: Date;
}

function personOf(r: PersonColumns): Person {
  return {
    id: r.id,
    email: r.email,
    name: r.name,
    passwordHash: r.password_hash,
    instanceAdmin: r.instance_admin,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

/**
 * People in PostgreSQL.
 *
 * @example
 * ```ts
 * const people = new PgPeople(sql);
 * await people.byEmail("ada@example.org");
 * ```
 */
export class PgPeople implements PeoplePort {
  constructor(private readonly sql: Sql) {}

  async create(p: Person): Promise<"created" | "email_taken"> {
    const rows = await this.sql`
      insert into people (id, email, name, password_hash, instance_admin, created_at, updated_at)
      values (${p.id}, ${p.email}, ${p.name}, ${p.passwordHash}, ${p.instanceAdmin},
        ${p.createdAt}, ${p.updatedAt})
      on conflict do nothing returning id`;
    return rows.length === 1 ? "created" : "email_taken";
  }

  async get(id: string): Promise<Person | null> {
    const [row] = await this.sql<PersonColumns[]>`select * from people where id = ${id}`;
    return row ? personOf(row) : null;
  }

  async byEmail(email: string): Promise<Person | null> {
    const [row] = await this.sql<PersonColumns[]>`
      select * from people where email = ${email.toLowerCase()}`;
    return row ? personOf(row) : null;
  }

  async list(): Promise<Person[]> {
    return (await this.sql<PersonColumns[]>`select * from people order by email`).map(personOf);
  }

  async update(
    id: string,
    change: (person: Person) => Person,
  ): Promise<Person | "email_taken" | null> {
    try {
      return await transaction(this.sql, async (tx) => {
        const [row] = await tx<PersonColumns[]>`select * from people where id = ${id} for update`;
        if (!row) return null;
        const p = change(personOf(row));
        await tx`
          update people set email = ${p.email}, name = ${p.name},
            password_hash = ${p.passwordHash}, instance_admin = ${p.instanceAdmin},
            created_at = ${p.createdAt}, updated_at = ${p.updatedAt}
          where id = ${id}`;
        return { ...p, id };
      });
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) return "email_taken";
      throw err;
    }
  }
}
