/**
 * Who may do what on a database: a person's role there (src/store/ports/memberships.ts) AND
 * their token's scopes. Every vault route, webhook route and console page states its need
 * (a role and a scope) and checks it on the database its resource belongs to:
 *
 * - not a member: the resource's own 404, exactly like a missing resource (no oracle);
 * - a member with a lower role: 403 `forbidden`;
 * - a token without the scope: 403 `insufficient_scope`.
 *
 * Resources find their database: a form by `FormHead.databaseId`; a record, file or export
 * by its form; a webhook by its form; a delivery by its webhook; a quarantined envelope by its
 * `databaseId`. Instance-wide routes (ingest) need an instance admin instead.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { type DomainError, Forbidden } from "../errors/index.ts";
import type { MembershipsPort, Role } from "../store/ports/memberships.ts";
import type { Scope } from "../store/ports/person_tokens.ts";

const RANK: Record<Role, number> = { viewer: 1, editor: 2, owner: 3 };

/** What an action needs: a role on the resource's database and a scope of the token. */
export type Need = readonly [Role, Scope];

/**
 * The needs of the vault's, the webhooks' and the console's actions: reads (databases,
 * forms, versions, manifests, records, files, exports); form changes (create, versions,
 * settings, publish, close, reopen); record edits and the quarantine; webhooks and their
 * deliveries; form deletion and the members of a database (an owner's; members need the
 * `admin` scope, the scope of people).
 */
export const NEED = {
  read: ["viewer", "records:read"],
  quarantine: ["editor", "records:read"],
  forms: ["editor", "forms:write"],
  records: ["editor", "records:write"],
  webhooks: ["editor", "webhooks:write"],
  deleteForm: ["owner", "forms:write"],
  members: ["owner", "admin"],
} as const satisfies Record<string, Need>;

/** The 403 of a member whose role is below what the action needs. */
function lowerRole(): Forbidden {
  return new Forbidden("forbidden", "Your role on this database does not allow this");
}

/** The 403 of a token without the scope the action needs. */
function missingScope(scope: Scope): Forbidden {
  return new Forbidden("insufficient_scope", `This token lacks the scope "${scope}"`);
}

/**
 * A principal bound to one need (a role and a scope): what services take instead of a user
 * id. `check` passes on a database the principal may act on, else throws as the module says;
 * `databases` lists those it may act on (for lists, after the scope check).
 */
export interface Gate {
  readonly principal: PersonPrincipal;
  /** Throws `notFound()`, or a 403, unless the need is met on `databaseId`. */
  check(databaseId: string, notFound: () => DomainError): Promise<void>;
  /** The ids of the databases where the need is met (a 403 when the scope is missing). */
  databases(): Promise<Set<string>>;
}

/**
 * The access checks, over the memberships port.
 *
 * @example
 * ```ts
 * const access = new Access(ports.memberships);
 * await access.need(person, form.databaseId, "editor", "forms:write", () => formNotFound(id));
 * const gate = access.gate(person, NEED.read);
 * ```
 */
export class Access {
  constructor(private memberships: Pick<MembershipsPort, "get" | "ofPerson">) {}

  /** Checks one need on `databaseId` (see the module doc for what fails how). */
  async need(
    principal: PersonPrincipal,
    databaseId: string,
    role: Role,
    scope: Scope,
    notFound: () => DomainError,
  ): Promise<void> {
    const member = await this.memberships.get(databaseId, principal.personId);
    if (!member) throw notFound();
    if (RANK[member.role] < RANK[role]) throw lowerRole();
    if (!principal.scopes.has(scope)) throw missingScope(scope);
  }

  /**
   * The ids of the databases where `principal` has at least `role` (403 without `scope`, or
   * when it is a member only with lower roles).
   */
  async databaseIds(principal: PersonPrincipal, role: Role, scope: Scope): Promise<Set<string>> {
    if (!principal.scopes.has(scope)) throw missingScope(scope);
    const mine = await this.memberships.ofPerson(principal.personId);
    const enough = mine.filter((m) => RANK[m.role] >= RANK[role]);
    // A member of databases, of none with the role: refused like one database would be.
    if (mine.length > 0 && enough.length === 0) throw lowerRole();
    return new Set(enough.map((m) => m.databaseId));
  }

  /** `principal` bound to a need, for the services. */
  gate(principal: PersonPrincipal, [role, scope]: Need): Gate {
    return {
      principal,
      check: (databaseId, notFound) => this.need(principal, databaseId, role, scope, notFound),
      databases: () => this.databaseIds(principal, role, scope),
    };
  }

  /** An instance-wide action: an instance admin with the `admin` scope, else a 403. */
  admin(principal: PersonPrincipal): void {
    if (!principal.instanceAdmin) {
      throw new Forbidden("forbidden", "Only an instance admin may do this");
    }
    if (!principal.scopes.has("admin")) throw missingScope("admin");
  }
}
