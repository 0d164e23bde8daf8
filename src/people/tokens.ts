/**
 * The API tokens people make for themselves (the `/vault/tokens` API, the console's "API
 * tokens" page and `sealpost token`): create one (its string shown once), list them (never a
 * secret), revoke one. Minting and checking a token string is src/people/person_tokens.ts's.
 *
 * What a token may carry:
 * - scopes are stored as asked, yet a token never does more than its person: every check
 *   needs the person's role AND the token's scope (src/people/access.ts);
 * - `admin` and `relay:queue` only for an instance admin (else 403 `forbidden`):
 *   `relay:queue` makes the token an owner token of the instance's relay account too (same id
 *   and secret hash, the identity port), and the relay knows no persons: there the token may do
 *   whatever the account may (read and acknowledge every queue of it, publish and close forms);
 * - a `relay:queue` token does not expire (the relay knows no expiry): it ends when revoked,
 *   and revoking deletes it at the relay first;
 * - a token made through a token (the CLI, the API) gets no scope its maker lacks (403
 *   `insufficient_scope`) and expires no later than its maker;
 * - a person has at most {@link MAX_TOKENS} tokens.
 *
 * A person sees and revokes only their own tokens (another person's answers like a missing
 * one); an instance admin with the `admin` scope may list and revoke anyone's, naming them.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { actionBy, type AuditLog } from "../audit/sink.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../errors/index.ts";
import type { IdentityPort } from "../store/ports/identity.ts";
import type { PeoplePort } from "../store/ports/people.ts";
import {
  type PersonToken,
  type PersonTokensPort,
  type Scope,
  SCOPES,
} from "../store/ports/person_tokens.ts";
import type { VaultDatabasesPort } from "../store/ports/vault_databases.ts";
import type { Access } from "./access.ts";
import { ACCOUNT_FACT } from "./bootstrap.ts";
import { mintPersonToken } from "./person_tokens.ts";

/** The most tokens one person may have at once. */
export const MAX_TOKENS = 100;

/** The longest expiry a token may be given, in days (ten years). */
export const MAX_EXPIRY_DAYS = 3650;

/** The scopes only an instance admin's token may carry. */
export const ADMIN_SCOPES: readonly Scope[] = ["admin", "relay:queue"];

/**
 * What each scope lets a token do, in plain words (the console's checkboxes, the API's and
 * the CLI's help). On a database, the person's role there must allow it too.
 */
export const SCOPE_TEXT: Record<Scope, string> = {
  "records:read": "Read records and their files, and export them",
  "records:write": "Add, change and delete records; retry or discard quarantined submissions",
  "forms:write": "Create forms, edit and publish their versions, close, reopen and delete them",
  "webhooks:write": "Set up webhooks, see their deliveries and send them again",
  "relay:queue": "Fetch sealed submissions from the relay as a vault worker (instance admins)",
  admin: "Manage people and the instance (instance admins)",
};

/** A token as it is shown: everything but its secret's hash. */
export type TokenView = Omit<PersonToken, "secretHash">;

/** What a person asks for. */
export interface TokenRequest {
  /** Its name ("laptop CLI", "vault worker 2"), 1 to 100 characters. */
  name: string;
  scopes: Scope[];
  /** Days until it is refused (1 to {@link MAX_EXPIRY_DAYS}); absent or null: never. */
  expiresInDays?: number | null;
}

/** What the tokens service reads and writes. */
export interface TokenDeps {
  tokens: PersonTokensPort;
  people: Pick<PeoplePort, "get">;
  /** Where the vault's relay account is named (the fact `account`). */
  facts: Pick<VaultDatabasesPort, "fact">;
  /** The relay's tokens, where a `relay:queue` token is an owner token too. */
  relay: Pick<IdentityPort, "saveToken" | "deleteToken">;
  access: Pick<Access, "admin">;
  audit: AuditLog;
  now?: () => Date;
}

/** The view of a stored token. */
function viewOf({ secretHash: _, ...view }: PersonToken): TokenView {
  return view;
}

function tokenNotFound(tokenId: string): NotFound {
  return new NotFound("token_not_found", `No token "${tokenId.slice(0, 64)}"`);
}

/**
 * People's API tokens (see the module doc for the rules).
 *
 * @example
 * ```ts
 * const tokens = new PersonTokens({ tokens: ports.personTokens, people: ports.people,
 *   facts: ports.vaultDatabases, relay: identity, access: vault.access, audit: vault.audit });
 * const { token } = await tokens.create(person, { name: "laptop", scopes: ["records:read"] });
 * ```
 */
export class PersonTokens {
  constructor(private deps: TokenDeps) {}

  /**
   * The tokens of `personId` (default: the caller's own), newest first; another person's
   * need an instance admin with the `admin` scope, and an unknown person is a 404.
   */
  async list(caller: PersonPrincipal, personId?: string): Promise<TokenView[]> {
    const owner = await this.ownerOf(caller, personId);
    return (await this.deps.tokens.list(owner)).map(viewOf);
  }

  /** Token `tokenId` of the caller's, or a 404 (missing, or someone else's). */
  async get(caller: PersonPrincipal, tokenId: string): Promise<TokenView> {
    const row = await this.deps.tokens.get(tokenId);
    if (!row || row.personId !== caller.personId) throw tokenNotFound(tokenId);
    return viewOf(row);
  }

  /**
   * Makes a token for the caller; the token string is returned once and only its hash is
   * kept.
   */
  async create(
    caller: PersonPrincipal,
    request: TokenRequest,
  ): Promise<{ token: string; view: TokenView }> {
    const name = request.name.trim();
    if (name.length < 1 || name.length > 100) {
      throw new Invalid("invalid_request", "A token's name has 1 to 100 characters", "name");
    }
    const scopes = SCOPES.filter((s) => request.scopes.includes(s));
    if (scopes.length === 0) {
      throw new Invalid("invalid_request", "A token needs at least one scope", "scopes");
    }
    for (const scope of scopes) {
      if (ADMIN_SCOPES.includes(scope) && !caller.instanceAdmin) {
        throw new Forbidden(
          "forbidden",
          `Only an instance admin may have a token with the scope "${scope}"`,
        );
      }
      if (caller.tokenId !== null && !caller.scopes.has(scope)) {
        throw new Forbidden(
          "insufficient_scope",
          `This token lacks the scope "${scope}", so it cannot give it`,
        );
      }
    }
    const expiresAt = await this.expiryOf(caller, request.expiresInDays ?? null);
    const relayQueue = scopes.includes("relay:queue");
    if (relayQueue && expiresAt !== null) {
      throw new Invalid(
        "invalid_request",
        request.expiresInDays
          ? "A relay:queue token cannot expire (the relay knows no expiry): revoke it instead"
          : "A token that expires cannot make a relay:queue token (which does not)",
        "expiresInDays",
      );
    }
    if ((await this.deps.tokens.list(caller.personId)).length >= MAX_TOKENS) {
      throw new Conflict(
        "too_many_tokens",
        `A person may have at most ${MAX_TOKENS} tokens: revoke one first`,
      );
    }
    const { token, row } = await mintPersonToken(caller.personId, name, scopes, expiresAt);
    if (relayQueue) await this.atRelay(row);
    await this.deps.tokens.save(row);
    this.deps.audit.record(actionBy(caller, "token_created", {
      target: { kind: "token", id: row.id },
      detail: { scopes: scopes.join(","), expires: expiresAt !== null },
    }));
    return { token, view: viewOf(row) };
  }

  /**
   * Revokes token `tokenId` of `personId` (default: the caller's own) at once, at the relay
   * first for a `relay:queue` one; a token of someone else answers like a missing one.
   */
  async revoke(caller: PersonPrincipal, tokenId: string, personId?: string): Promise<void> {
    const owner = await this.ownerOf(caller, personId);
    const row = await this.deps.tokens.get(tokenId);
    if (!row || row.personId !== owner) throw tokenNotFound(tokenId);
    await this.#end(row);
    this.deps.audit.record(actionBy(caller, "token_revoked", {
      target: { kind: "token", id: row.id },
      ...(row.personId !== caller.personId ? { detail: { person: row.personId } } : {}),
    }));
  }

  /**
   * Revokes every token of `personId` at once (a person removed from their last database):
   * how many there were. The caller records why.
   */
  async revokeAllOf(personId: string): Promise<number> {
    let revoked = 0;
    for (const row of await this.deps.tokens.list(personId)) {
      if (await this.#end(row)) revoked++;
    }
    return revoked;
  }

  /** Ends a token: at the relay first for a `relay:queue` one, then in the vault. */
  async #end(row: PersonToken): Promise<boolean> {
    if (row.scopes.includes("relay:queue")) await this.deps.relay.deleteToken(row.id);
    return (await this.deps.tokens.revoke(row.id)) !== null;
  }

  /** The person whose tokens the caller names: themselves, or (an admin's) anyone known. */
  private async ownerOf(caller: PersonPrincipal, personId?: string): Promise<string> {
    if (personId === undefined || personId === caller.personId) return caller.personId;
    this.deps.access.admin(caller);
    if (!(await this.deps.people.get(personId))) {
      throw new NotFound("person_not_found", `No person "${personId.slice(0, 64)}"`);
    }
    return personId;
  }

  /**
   * When a new token expires: in `days` (or never), and no later than the caller's own token
   * when it was made through one that expires.
   */
  private async expiryOf(caller: PersonPrincipal, days: number | null): Promise<string | null> {
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > MAX_EXPIRY_DAYS)) {
      throw new Invalid(
        "invalid_request",
        `expiresInDays must be a whole number from 1 to ${MAX_EXPIRY_DAYS}`,
        "expiresInDays",
      );
    }
    const now = (this.deps.now ?? (() => new Date()))().getTime();
    const asked = days === null ? null : now + days * 86_400_000;
    const maker = caller.tokenId === null ? null : await this.deps.tokens.get(caller.tokenId);
    const limit = maker?.expiresAt ? Date.parse(maker.expiresAt) : null;
    const at = limit === null ? asked : asked === null ? limit : Math.min(asked, limit);
    return at === null ? null : new Date(at).toISOString();
  }

  /** Makes `row` an owner token of the vault's relay account too (same id and hash). */
  private async atRelay(row: PersonToken): Promise<void> {
    const account = await this.deps.facts.fact<string>(ACCOUNT_FACT);
    if (!account) {
      throw new Conflict("no_account", "This vault has no relay account yet: start it once");
    }
    await this.deps.relay.saveToken({
      id: row.id,
      kind: "owner",
      userId: account,
      secretHash: row.secretHash,
      createdAt: row.createdAt,
    });
  }
}
