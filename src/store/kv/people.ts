/**
 * The people port on Deno KV: a person under `peopleKeys.person`, and the uniqueness index
 * `peopleKeys.email` (email → id), written and checked in the same atomic operation as the
 * person, so of two people made with one email at once exactly one is stored.
 *
 * @module
 */
import { peopleKeys } from "./keys.ts";
import { readMany } from "./read_many.ts";
import { KvWrite } from "./write.ts";
import type { PeoplePort, Person } from "../ports/people.ts";

/**
 * People in Deno KV.
 *
 * @example
 * ```ts
 * const people = new KvPeople(kv);
 * await people.create(person); // "created" or "email_taken"
 * ```
 */
export class KvPeople implements PeoplePort {
  constructor(private readonly kv: Deno.Kv) {}

  async create(person: Person): Promise<"created" | "email_taken"> {
    const created = await new KvWrite()
      .check({ key: peopleKeys.person(person.id), versionstamp: null })
      .check({ key: peopleKeys.email(person.email), versionstamp: null })
      .set(peopleKeys.person(person.id), person)
      .set(peopleKeys.email(person.email), person.id)
      .commit(this.kv);
    return created ? "created" : "email_taken";
  }

  async get(id: string): Promise<Person | null> {
    return (await this.kv.get<Person>(peopleKeys.person(id))).value;
  }

  async byEmail(email: string): Promise<Person | null> {
    const id = (await this.kv.get<string>(peopleKeys.email(email.toLowerCase()))).value;
    return id === null ? null : await this.get(id);
  }

  async list(): Promise<Person[]> {
    const index = await Array.fromAsync(this.kv.list<string>({ prefix: peopleKeys.emails() }));
    return await readMany<Person>(this.kv, index.map((entry) => peopleKeys.person(entry.value)));
  }

  async update(
    id: string,
    change: (person: Person) => Person,
  ): Promise<Person | "email_taken" | null> {
    for (;;) {
      const entry = await this.kv.get<Person>(peopleKeys.person(id));
      if (!entry.value) return null;
      const next = { ...change(entry.value), id };
      const write = new KvWrite().check(entry).set(entry.key, next);
      if (next.email !== entry.value.email) {
        const taken = await this.kv.get<string>(peopleKeys.email(next.email));
        if (taken.value !== null && taken.value !== id) return "email_taken";
        write.check(taken)
          .delete(peopleKeys.email(entry.value.email))
          .set(peopleKeys.email(next.email), id);
      }
      if (await write.commit(this.kv)) return next;
    }
  }
}
