/**
 * The people of an instance made before there were people (run by `init` and `serve`,
 * idempotent): `init`'s user becomes the first person (an instance admin, owner of every
 * database), each relay account with vault databases gets a person (owner of its databases),
 * and the vault fact `account` names `init`'s user, under which new databases are created.
 *
 * A person made here has the id of its account, so the owner tokens of that account
 * (`spo_…`) become its person tokens with every scope: `init`'s token (from credentials.json)
 * at once, any other on its first use on a vault route ({@link adoptOwnerToken}). Existing token
 * strings keep working everywhere they work today.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { authenticate, sha256Hex, type TokenSource } from "../auth/tokens.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { IdentityPort } from "../store/ports/identity.ts";
import type { Person } from "../store/ports/people.ts";
import { type PersonToken, SCOPES } from "../store/ports/person_tokens.ts";

/** The vault fact naming the relay account new databases are created under. */
export const ACCOUNT_FACT = "account";

/** What bootstrap reads and writes. */
export interface PeopleBootstrap {
  vault: Pick<VaultPorts, "people" | "memberships" | "personTokens" | "vaultDatabases">;
  identity: Pick<IdentityPort, "getUser"> & TokenSource;
  /**
   * `init`'s user and owner token (credentials.json; null in a process that joined a shared
   * store: the token becomes a person token on its first use).
   */
  first: { userId: string; ownerToken: string | null };
  /** The first person's email (`init --email`); else `owner@<host>.invalid`. */
  email?: string;
  /** The instance's host name, for placeholder emails. */
  host: string;
}

const TOKEN_RE = /^spo_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/;

/**
 * Makes the people of existing accounts and databases (see the module doc); answers the first
 * person as a principal with every scope (for the vault's first run).
 *
 * @example
 * ```ts
 * const first = await bootstrapPeople({ vault: ports, identity, first: credentials, host });
 * await vault.bootstrap(vault.access.gate(first, NEED.forms));
 * ```
 */
export async function bootstrapPeople(setup: PeopleBootstrap): Promise<PersonPrincipal> {
  const { vault, first } = setup;
  if (!(await vault.vaultDatabases.fact<string>(ACCOUNT_FACT))) {
    await vault.vaultDatabases.setFact(ACCOUNT_FACT, first.userId);
  }
  const email = (setup.email ?? `owner@${setup.host}.invalid`).toLowerCase();
  await personOf(setup, first.userId, email, true);
  const databases = await vault.vaultDatabases.list();
  const accounts = new Set(databases.map((db) => db.userId));
  accounts.delete(first.userId);
  for (const account of accounts) {
    await personOf(setup, account, `account-${account}@${setup.host}.invalid`, false);
  }
  for (const db of databases) {
    await ownerOf(setup, db.id, first.userId, db.createdAt);
    if (db.userId !== first.userId) await ownerOf(setup, db.id, db.userId, db.createdAt);
  }
  if (first.ownerToken) await adoptOwnerToken(setup, first.ownerToken);
  return {
    kind: "person",
    personId: first.userId,
    instanceAdmin: true,
    scopes: new Set(SCOPES),
    tokenId: null,
    sessionId: null,
  };
}

/** The person of account `userId`, made if missing. */
async function personOf(
  setup: PeopleBootstrap,
  userId: string,
  email: string,
  instanceAdmin: boolean,
): Promise<void> {
  if (await setup.vault.people.get(userId)) return;
  const user = await setup.identity.getUser(userId);
  const now = new Date().toISOString();
  const person: Person = {
    id: userId,
    email,
    name: user?.name ?? "",
    passwordHash: null,
    instanceAdmin,
    createdAt: now,
    updatedAt: now,
  };
  await setup.vault.people.create(person);
}

/** Makes `personId` an owner of `databaseId` unless they are a member already. */
async function ownerOf(
  setup: PeopleBootstrap,
  databaseId: string,
  personId: string,
  since: string,
): Promise<void> {
  if (await setup.vault.memberships.get(databaseId, personId)) return;
  await setup.vault.memberships.put({ databaseId, personId, role: "owner", since });
}

/**
 * Makes a presented owner token (`spo_…`) of an account that has a person into that person's
 * token (same id and hash, every scope), once; true when the token now is one. A wrong
 * secret, a revoked token or an account without a person adopts nothing.
 *
 * @example
 * ```ts
 * await adoptOwnerToken({ vault: ports, identity }, "spo_…");
 * ```
 */
export async function adoptOwnerToken(
  setup: Pick<PeopleBootstrap, "vault" | "identity">,
  token: string,
): Promise<boolean> {
  const match = TOKEN_RE.exec(token);
  if (!match) return false;
  const [, id, secret] = match;
  if (await setup.vault.personTokens.get(id)) return true;
  const owner = await authenticate(setup.identity, token);
  if (owner?.kind !== "owner" || !(await setup.vault.people.get(owner.userId))) return false;
  const adopted: PersonToken = {
    id,
    personId: owner.userId,
    name: "owner token",
    scopes: [...SCOPES],
    secretHash: await sha256Hex(secret),
    createdAt: new Date().toISOString(),
    expiresAt: null,
    lastUsedAt: null,
  };
  await setup.vault.personTokens.save(adopted);
  return true;
}
