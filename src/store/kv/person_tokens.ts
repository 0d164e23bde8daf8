/**
 * The person tokens port on Deno KV: a token under `peopleKeys.token`, listed per person by
 * `peopleKeys.tokenOf` (written and deleted with it); of two revocations at once, one answers
 * the token. A use is recorded at most once a minute, with a versionstamp check, so a token
 * revoked meanwhile is never written back.
 *
 * @module
 */
import { peopleKeys } from "./keys.ts";
import { readMany } from "./read_many.ts";
import { KvWrite } from "./write.ts";
import type { PersonToken, PersonTokensPort } from "../ports/person_tokens.ts";

/** Uses closer together than this are not written. */
const TOUCH_EVERY_MS = 60_000;

/** Newest first; ties by id, descending (as on PostgreSQL). */
function newestFirst(a: PersonToken, b: PersonToken): number {
  const at = Date.parse(b.createdAt) - Date.parse(a.createdAt);
  return at !== 0 ? at : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * People's tokens in Deno KV.
 *
 * @example
 * ```ts
 * const tokens = new KvPersonTokens(kv);
 * await tokens.touch(token.id, new Date().toISOString());
 * ```
 */
export class KvPersonTokens implements PersonTokensPort {
  constructor(private readonly kv: Deno.Kv) {}

  async save(token: PersonToken): Promise<void> {
    const stored = await this.get(token.id);
    const write = new KvWrite()
      .set(peopleKeys.token(token.id), token)
      .set(peopleKeys.tokenOf(token.personId, token.id), null);
    if (stored && stored.personId !== token.personId) {
      write.delete(peopleKeys.tokenOf(stored.personId, token.id));
    }
    await write.commit(this.kv);
  }

  async get(id: string): Promise<PersonToken | null> {
    return (await this.kv.get<PersonToken>(peopleKeys.token(id))).value;
  }

  async list(personId: string): Promise<PersonToken[]> {
    const index = await Array.fromAsync(this.kv.list({ prefix: peopleKeys.tokensOf(personId) }));
    const ids = index.map((entry) => String(entry.key.at(-1)));
    const tokens = await readMany<PersonToken>(this.kv, ids.map(peopleKeys.token));
    return tokens.filter((t) => t.personId === personId).sort(newestFirst);
  }

  async revoke(id: string): Promise<PersonToken | null> {
    // Checked, so of two revocations at once one answers the token (as on PostgreSQL).
    for (;;) {
      const entry = await this.kv.get<PersonToken>(peopleKeys.token(id));
      if (!entry.value) return null;
      const revoked = await new KvWrite().check(entry)
        .delete(entry.key)
        .delete(peopleKeys.tokenOf(entry.value.personId, id))
        .commit(this.kv);
      if (revoked) return entry.value;
    }
  }

  async touch(id: string, at: string): Promise<void> {
    const entry = await this.kv.get<PersonToken>(peopleKeys.token(id));
    const last = entry.value?.lastUsedAt;
    if (!entry.value || (last && Date.parse(at) - Date.parse(last) < TOUCH_EVERY_MS)) return;
    // A failed check: revoked, or touched by another use meanwhile; either way nothing to do.
    await new KvWrite().check(entry).set(entry.key, { ...entry.value, lastUsedAt: at })
      .commit(this.kv);
  }
}
