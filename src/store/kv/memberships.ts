/**
 * The memberships port on Deno KV: each membership twice, under `peopleKeys.member` (listed by
 * database) and `peopleKeys.membership` (listed by person), written in one atomic operation,
 * with the database's owner count `peopleKeys.owners`. Every write that changes who owns a
 * database checks the count's versionstamp, so of two demotions at once one commits and the
 * other runs again on what the first left (and is refused when that left one owner).
 *
 * @module
 */
import { peopleKeys } from "./keys.ts";
import { KvWrite } from "./write.ts";
import type { Membership, MembershipsPort } from "../ports/memberships.ts";

const isOwner = (m: Membership | null) => m?.role === "owner";

/**
 * Memberships in Deno KV.
 *
 * @example
 * ```ts
 * const memberships = new KvMemberships(kv);
 * await memberships.put({ databaseId, personId, role: "owner", since }); // "ok"
 * ```
 */
export class KvMemberships implements MembershipsPort {
  constructor(private readonly kv: Deno.Kv) {}

  async get(databaseId: string, personId: string): Promise<Membership | null> {
    return (await this.kv.get<Membership>(peopleKeys.member(databaseId, personId))).value;
  }

  async ofPerson(personId: string): Promise<Membership[]> {
    return await this.#list(peopleKeys.membershipsOf(personId));
  }

  async ofDatabase(databaseId: string): Promise<Membership[]> {
    return await this.#list(peopleKeys.membersOf(databaseId));
  }

  async put(membership: Membership): Promise<"ok" | "last_owner"> {
    const { databaseId, personId } = membership;
    for (;;) {
      const [entry, owners] = await this.#read(databaseId, personId);
      const stored = entry.value;
      const next = stored ? { ...membership, since: stored.since } : membership;
      const change = Number(isOwner(next)) - Number(isOwner(stored));
      if (change < 0 && (owners.value ?? 0) <= 1) return "last_owner";
      const write = new KvWrite().check(entry)
        .set(peopleKeys.member(databaseId, personId), next)
        .set(peopleKeys.membership(personId, databaseId), next);
      if (change !== 0) write.check(owners).set(owners.key, (owners.value ?? 0) + change);
      if (await write.commit(this.kv)) return "ok";
    }
  }

  async remove(databaseId: string, personId: string): Promise<"ok" | "last_owner" | "missing"> {
    for (;;) {
      const [entry, owners] = await this.#read(databaseId, personId);
      if (!entry.value) return "missing";
      const write = new KvWrite().check(entry)
        .delete(peopleKeys.member(databaseId, personId))
        .delete(peopleKeys.membership(personId, databaseId));
      if (isOwner(entry.value)) {
        const left = (owners.value ?? 0) - 1;
        if (left < 1) return "last_owner";
        write.check(owners).set(owners.key, left);
      }
      if (await write.commit(this.kv)) return "ok";
    }
  }

  /** The membership as the database lists it, and the database's owner count. */
  async #read(databaseId: string, personId: string) {
    return await this.kv.getMany<[Membership, number]>([
      peopleKeys.member(databaseId, personId),
      peopleKeys.owners(databaseId),
    ]);
  }

  async #list(prefix: Deno.KvKey): Promise<Membership[]> {
    const rows = this.kv.list<Membership>({ prefix });
    return (await Array.fromAsync(rows)).map((entry) => entry.value);
  }
}
