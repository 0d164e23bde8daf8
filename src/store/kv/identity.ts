/**
 * The identity port on Deno KV: `users/{id}`, `tokens/{id}`, `databases/{userId}/{dbId}`,
 * `recipients/{fingerprint}` (the routing index) and `challenges/{id}` (with a KV expiry).
 *
 * @module
 */
import { keys } from "./keys.ts";
import { KvWrite } from "./write.ts";
import type {
  ApiToken,
  IdentityPort,
  KeyChallenge,
  RecipientRoute,
  RegistrationOutcome,
  RelayDatabase,
  User,
} from "../ports/identity.ts";

/**
 * Users, tokens, databases and challenges in Deno KV.
 *
 * @example
 * ```ts
 * const identity = new KvIdentity(kv);
 * const user = await identity.getUser("3f2a9c0d1e4b5a69");
 * ```
 */
export class KvIdentity implements IdentityPort {
  constructor(private readonly kv: Deno.Kv) {}

  async createUser(user: User, token: ApiToken): Promise<boolean> {
    return await new KvWrite()
      .check({ key: keys.user(user.id), versionstamp: null })
      .set(keys.user(user.id), user)
      .set(keys.token(token.id), token)
      .commit(this.kv);
  }

  async saveToken(token: ApiToken): Promise<void> {
    await this.kv.set(keys.token(token.id), token);
  }

  async deleteToken(tokenId: string): Promise<void> {
    await this.kv.delete(keys.token(tokenId));
  }

  async getToken(tokenId: string): Promise<ApiToken | null> {
    return (await this.kv.get<ApiToken>(keys.token(tokenId))).value;
  }

  async getUser(userId: string): Promise<User | null> {
    return (await this.kv.get<User>(keys.user(userId))).value;
  }

  async listDatabases(userId: string): Promise<RelayDatabase[]> {
    const rows = this.kv.list<RelayDatabase>({ prefix: keys.databasesOf(userId) });
    return (await Array.fromAsync(rows)).map((entry) => entry.value);
  }

  async recipientOwner(fingerprint: string): Promise<RecipientRoute | null> {
    return (await this.kv.get<RecipientRoute>(keys.recipient(fingerprint))).value;
  }

  async listRecipients(): Promise<string[]> {
    const rows = this.kv.list({ prefix: keys.recipientsAll() });
    return (await Array.fromAsync(rows)).map((entry) => String(entry.key[1]));
  }

  async saveChallenge(challenge: KeyChallenge): Promise<void> {
    const expireIn = Math.max(1, challenge.expiresAt - Date.now());
    await this.kv.set(keys.challenge(challenge.id), challenge, { expireIn });
  }

  async getChallenge(challengeId: string): Promise<KeyChallenge | null> {
    const row = (await this.kv.get<KeyChallenge>(keys.challenge(challengeId))).value;
    // A KV expiry is lazy: an expired row can linger for a while.
    return row && row.expiresAt >= Date.now() ? row : null;
  }

  async completeRegistration(
    challenge: KeyChallenge,
    db: RelayDatabase,
  ): Promise<RegistrationOutcome> {
    const [stored, route] = await this.kv.getMany<[KeyChallenge, RecipientRoute]>([
      keys.challenge(challenge.id),
      keys.recipient(db.fingerprint),
    ]);
    if (route.value) return "key_registered";
    if (!stored.value || JSON.stringify(stored.value) !== JSON.stringify(challenge)) {
      return "challenge_gone";
    }
    const registered = await new KvWrite()
      .check(stored, route)
      .set(keys.database(db.userId, db.id), db)
      .set(keys.recipient(db.fingerprint), { userId: db.userId, dbId: db.id })
      .delete(keys.challenge(challenge.id))
      .commit(this.kv);
    if (registered) return "registered";
    // Which check failed: read again (a route now present wins).
    return (await this.recipientOwner(db.fingerprint)) ? "key_registered" : "challenge_gone";
  }
}
