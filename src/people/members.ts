/**
 * The members of a database, as its owners manage them (need `NEED.members`: the role owner
 * and the `admin` scope): the list with roles, changing a role, removing a member. A database
 * keeps at least one owner (the memberships port refuses the change that would leave none: a
 * 409 `last_owner` in plain words).
 *
 * Removing a member ends their access at once: every console session of theirs ends (a session
 * stands for the person, not for one database), and when they are then a member of no database
 * and no instance admin, every token of theirs is revoked too; otherwise their tokens stay for
 * their other databases, where they still are members, and reach nothing of this one (404, as
 * missing).
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { actionBy, type AuditLog } from "../audit/sink.ts";
import { Conflict, NotFound } from "../errors/index.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { Membership, Role } from "../store/ports/memberships.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import { type Access, type Gate, NEED } from "./access.ts";

/** A member as the members list shows them. */
export interface MemberView {
  personId: string;
  email: string;
  name: string;
  role: Role;
  since: string;
}

/** What the members service uses: the vault's ports, access, audit and database lookup. */
export interface MembersDeps {
  store: Pick<VaultPorts, "people" | "memberships" | "personTokens" | "sessions">;
  access: Pick<Access, "gate">;
  audit: AuditLog;
  /** The database `dbId` if the gate lets it through, else its 404 or 403. */
  database(gate: Gate, dbId: string): Promise<VaultDatabase>;
  /** Revokes every API token of a person (at the relay too); how many. */
  revokeTokens(personId: string): Promise<number>;
}

/** The 409 of a change that would leave a database without an owner. */
export function lastOwner(): Conflict {
  return new Conflict(
    "last_owner",
    "A database keeps at least one owner: make another member an owner first",
  );
}

/** The 404 of a person who is no member of the database. */
function memberNotFound(personId: string): NotFound {
  return new NotFound("member_not_found", `No member "${personId.slice(0, 64)}"`, "personId");
}

/**
 * The members of databases.
 *
 * @example
 * ```ts
 * const members = new Members(vault);
 * await members.setRole(owner, dbId, personId, "viewer");
 * ```
 */
export class Members {
  constructor(private deps: MembersDeps) {}

  /** The database `dbId`, if `by` is one of its owners (else its 404 or a 403). */
  async ownedDatabase(by: PersonPrincipal, dbId: string): Promise<VaultDatabase> {
    return await this.deps.database(this.deps.access.gate(by, NEED.members), dbId);
  }

  /** The members of `dbId` with their names and emails, owners first, then by email. */
  async list(by: PersonPrincipal, dbId: string): Promise<MemberView[]> {
    await this.ownedDatabase(by, dbId);
    return await this.views(await this.deps.store.memberships.ofDatabase(dbId));
  }

  /** Changes the role of member `personId` (409 `last_owner` for the last owner). */
  async setRole(
    by: PersonPrincipal,
    dbId: string,
    personId: string,
    role: Role,
  ): Promise<MemberView> {
    await this.ownedDatabase(by, dbId);
    const { memberships } = this.deps.store;
    const member = await memberships.get(dbId, personId);
    if (!member) throw memberNotFound(personId);
    if (member.role !== role) {
      if (await memberships.put({ ...member, role }) === "last_owner") throw lastOwner();
      this.deps.audit.record(actionBy(by, "member_role_changed", {
        databaseId: dbId,
        target: { kind: "person", id: personId },
        detail: { from: member.role, to: role },
      }));
    }
    return (await this.views([{ ...member, role }]))[0];
  }

  /**
   * Removes member `personId` (409 `last_owner` for the last owner) and ends their access as
   * the module says; how many sessions ended and tokens were revoked.
   */
  async remove(
    by: PersonPrincipal,
    dbId: string,
    personId: string,
  ): Promise<{ sessionsEnded: number; tokensRevoked: number }> {
    await this.ownedDatabase(by, dbId);
    const { store } = this.deps;
    const outcome = await store.memberships.remove(dbId, personId);
    if (outcome === "missing") throw memberNotFound(personId);
    if (outcome === "last_owner") throw lastOwner();
    const sessionsEnded = await store.sessions.deleteAll(personId);
    let tokensRevoked = 0;
    const person = await store.people.get(personId);
    const elsewhere = await store.memberships.ofPerson(personId);
    if (elsewhere.length === 0 && !person?.instanceAdmin) {
      tokensRevoked = await this.deps.revokeTokens(personId);
    }
    this.deps.audit.record(actionBy(by, "member_removed", {
      databaseId: dbId,
      target: { kind: "person", id: personId },
      detail: { sessionsEnded, tokensRevoked },
    }));
    return { sessionsEnded, tokensRevoked };
  }

  /** Memberships with their people's names and emails, owners first, then by email. */
  private async views(rows: Membership[]): Promise<MemberView[]> {
    const order: Record<Role, number> = { owner: 0, editor: 1, viewer: 2 };
    const out: MemberView[] = [];
    for (const m of rows) {
      const person = await this.deps.store.people.get(m.personId);
      out.push({
        personId: m.personId,
        email: person?.email ?? "",
        name: person?.name ?? "",
        role: m.role,
        since: m.since,
      });
    }
    return out.sort((a, b) => order[a.role] - order[b.role] || a.email.localeCompare(b.email));
  }
}
