/**
 * Test helpers for people: a person with a role on a database and a token, made directly
 * through the in-process instance's store ports; and the gate of a vault's first person for
 * tests that call the vault's services.
 */
import type { PersonPrincipal } from "../../src/auth/index.ts";
import { type Gate, NEED } from "../../src/people/access.ts";
import { ACCOUNT_FACT } from "../../src/people/bootstrap.ts";
import { mintPersonToken } from "../../src/people/person_tokens.ts";
import type { Role } from "../../src/store/ports/memberships.ts";
import type { Person } from "../../src/store/ports/people.ts";
import { type Scope, SCOPES } from "../../src/store/ports/person_tokens.ts";
import type { Vault } from "../../src/vault/index.ts";
import type { TestInstance } from "./server.ts";

/**
 * The gate of person `userId` (made if missing, with the account `userId` as the vault's
 * account when it has none): every scope, owner of the databases it creates.
 */
export async function ownerGate(vault: Vault, userId: string): Promise<Gate> {
  const ports = vault.store;
  if (!(await ports.vaultDatabases.fact<string>(ACCOUNT_FACT))) {
    await ports.vaultDatabases.setFact(ACCOUNT_FACT, userId);
  }
  if (!(await ports.people.get(userId))) {
    const now = new Date().toISOString();
    await ports.people.create({
      id: userId,
      email: `${userId}@test.invalid`,
      name: "",
      passwordHash: null,
      instanceAdmin: true,
      createdAt: now,
      updatedAt: now,
    });
  }
  const person: PersonPrincipal = {
    kind: "person",
    personId: userId,
    instanceAdmin: true,
    scopes: new Set(SCOPES),
    tokenId: null,
    sessionId: null,
  };
  return vault.access.gate(person, NEED.deleteForm);
}

/** Person `id` (Ada, no password, not an admin), as a store keeps one. */
export function adaPerson(id: string): Person {
  return {
    id,
    email: "ada@example.org",
    name: "Ada",
    passwordHash: null,
    instanceAdmin: false,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
  };
}

/** A person made for a test: its id and a token string. */
export interface TestPerson {
  personId: string;
  token: string;
  tokenId: string;
}

/**
 * Makes a person of instance `inst` with a token (every scope unless `scopes`; `expiresAt`
 * for an expired one) and, with `databaseId` and `role`, a membership.
 */
export async function addPerson(
  inst: TestInstance,
  options: {
    name?: string;
    databaseId?: string;
    role?: Role;
    scopes?: Scope[];
    expiresAt?: string | null;
    instanceAdmin?: boolean;
  } = {},
): Promise<TestPerson> {
  const ports = inst.server.vault!.store;
  const personId = crypto.getRandomValues(new Uint8Array(12)).toHex();
  const now = new Date().toISOString();
  await ports.people.create({
    id: personId,
    email: `${personId}@test.invalid`,
    name: options.name ?? "",
    passwordHash: null,
    instanceAdmin: options.instanceAdmin ?? false,
    createdAt: now,
    updatedAt: now,
  });
  if (options.databaseId && options.role) {
    await ports.memberships.put({
      databaseId: options.databaseId,
      personId,
      role: options.role,
      since: now,
    });
  }
  const { token, row } = await mintPersonToken(
    personId,
    "test",
    options.scopes ?? [...SCOPES],
    options.expiresAt ?? null,
  );
  await ports.personTokens.save(row);
  return { personId, token, tokenId: row.id };
}

/**
 * A second person of the instance (`name` as their display name) who is a member of no
 * database yet: their token (every scope). What a second owner made with `/admin/users` was.
 */
export async function secondPerson(inst: TestInstance, name = ""): Promise<string> {
  return (await addPerson(inst, { name })).token;
}
