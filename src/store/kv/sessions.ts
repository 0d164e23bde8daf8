/**
 * The console sessions port on Deno KV: a session under `consoleKeys.session`, and an entry
 * per session under `consoleKeys.userSession` for "sign out everywhere"; both expire with the
 * session's ttl.
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
      .set(consoleKeys.userSession(row.userId, idHash), null, { expireIn: ttlMs })
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

  async delete(userId: string, idHash: string): Promise<void> {
    await new KvWrite()
      .delete(consoleKeys.session(idHash))
      .delete(consoleKeys.userSession(userId, idHash))
      .commit(this.kv);
  }

  async deleteAll(userId: string): Promise<number> {
    let count = 0;
    const iter = this.kv.list({ prefix: consoleKeys.userSessions(userId) }, { batchSize: 500 });
    for await (const entry of iter) {
      await this.delete(userId, String(entry.key.at(-1)));
      count++;
    }
    return count;
  }
}
