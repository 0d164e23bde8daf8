/**
 * The console sessions port on Deno KV: a session under `consoleKeys.session`, and an entry
 * per session under `consoleKeys.userSession` (by person) for listing them and "sign out
 * everywhere"; both expire with the session's ttl.
 *
 * @module
 */
import { consoleKeys } from "./keys.ts";
import type { ConsoleSession, SessionsPort } from "../ports/sessions.ts";
import { KvWrite } from "./write.ts";

/**
 * The Deno KV session store.
 *
 * @example
 * ```ts
 * const sessions = new KvSessions(kv);
 * await sessions.create(idHash, row, 3600_000);
 * ```
 */
export class KvSessions implements SessionsPort {
  constructor(private kv: Deno.Kv) {}

  async create(idHash: string, row: ConsoleSession, ttlMs: number): Promise<void> {
    await new KvWrite()
      .set(consoleKeys.session(idHash), row, { expireIn: ttlMs })
      .set(consoleKeys.userSession(row.personId, idHash), null, { expireIn: ttlMs })
      .commit(this.kv);
  }

  async get(idHash: string): Promise<ConsoleSession | null> {
    return (await this.kv.get<ConsoleSession>(consoleKeys.session(idHash))).value;
  }

  async touch(idHash: string, seenAt: number, ttlMs: number): Promise<boolean> {
    const entry = await this.kv.get<ConsoleSession>(consoleKeys.session(idHash));
    if (!entry.value || entry.value.seenAt >= seenAt) return false;
    const next = { ...entry.value, seenAt };
    return await new KvWrite().check(entry).set(entry.key, next, { expireIn: ttlMs }).commit(
      this.kv,
    );
  }

  async delete(personId: string, idHash: string): Promise<void> {
    await new KvWrite()
      .delete(consoleKeys.session(idHash))
      .delete(consoleKeys.userSession(personId, idHash))
      .commit(this.kv);
  }

  async deleteAll(personId: string): Promise<number> {
    let count = 0;
    for (const idHash of await this.#ids(personId)) {
      await this.delete(personId, idHash);
      count++;
    }
    return count;
  }

  async list(personId: string): Promise<{ idHash: string; session: ConsoleSession }[]> {
    const out = [];
    for (const idHash of await this.#ids(personId)) {
      const session = await this.get(idHash);
      if (session) out.push({ idHash, session });
    }
    return out.sort((a, b) => a.session.createdAt - b.session.createdAt);
  }

  async #ids(personId: string): Promise<string[]> {
    const ids = [];
    const iter = this.kv.list({ prefix: consoleKeys.userSessions(personId) }, { batchSize: 500 });
    for await (const entry of iter) ids.push(String(entry.key.at(-1)));
    return ids;
  }
}
