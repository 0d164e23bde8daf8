/**
 * The sign-in factors port on Deno KV (keys: `signInKeys`): a passkey under its credential id
 * with an index entry per person, a TOTP factor per person, and a key per unused recovery code
 * (using one deletes it under a check of its versionstamp, so only one use commits), with a
 * generation number per person that orders replacements of the list.
 *
 * @module
 */
import { signInKeys } from "./keys.ts";
import type { Passkey, SignInFactorsPort, TotpFactor } from "../ports/sign_in_factors.ts";
import { KvWrite } from "./write.ts";

/**
 * The Deno KV sign-in factors store.
 *
 * @example
 * ```ts
 * const factors = new KvSignInFactors(kv);
 * await factors.add(passkey); // "added"
 * ```
 */
export class KvSignInFactors implements SignInFactorsPort {
  constructor(private kv: Deno.Kv) {}

  async add(passkey: Passkey): Promise<"added" | "taken"> {
    const key = signInKeys.passkey(passkey.credentialId);
    const ok = await new KvWrite()
      .check({ key, versionstamp: null })
      .set(key, passkey)
      .set(signInKeys.personPasskey(passkey.personId, passkey.credentialId), passkey.createdAt)
      .commit(this.kv);
    return ok ? "added" : "taken";
  }

  async byCredentialId(credentialId: string): Promise<Passkey | null> {
    return (await this.kv.get<Passkey>(signInKeys.passkey(credentialId))).value;
  }

  async list(personId: string): Promise<Passkey[]> {
    const ids: string[] = [];
    for await (const entry of this.kv.list({ prefix: signInKeys.personPasskeys(personId) })) {
      ids.push(String(entry.key.at(-1)));
    }
    const found: Passkey[] = [];
    for (let i = 0; i < ids.length; i += 10) {
      const entries = await this.kv.getMany<Passkey[]>(
        ids.slice(i, i + 10).map((id) => signInKeys.passkey(id)),
      );
      for (const entry of entries) if (entry.value) found.push(entry.value);
    }
    return found.sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt) || a.credentialId.localeCompare(b.credentialId)
    );
  }

  async updateCounter(credentialId: string, counter: number, at: string): Promise<boolean> {
    for (;;) {
      const entry = await this.kv.get<Passkey>(signInKeys.passkey(credentialId));
      const stored = entry.value;
      if (!stored || !(counter > stored.counter || (counter === 0 && stored.counter === 0))) {
        return false;
      }
      const next = { ...stored, counter, lastUsedAt: at };
      if (await new KvWrite().check(entry).set(entry.key, next).commit(this.kv)) return true;
    }
  }

  async remove(personId: string, credentialId: string): Promise<boolean> {
    const entry = await this.kv.get<Passkey>(signInKeys.passkey(credentialId));
    if (entry.value?.personId !== personId) return false;
    return await new KvWrite()
      .check(entry)
      .delete(entry.key)
      .delete(signInKeys.personPasskey(personId, credentialId))
      .commit(this.kv);
  }

  async getTotp(personId: string): Promise<TotpFactor | null> {
    return (await this.kv.get<TotpFactor>(signInKeys.totp(personId))).value;
  }

  async setTotp(personId: string, factor: TotpFactor): Promise<void> {
    await this.kv.set(signInKeys.totp(personId), factor);
  }

  async clearTotp(personId: string): Promise<void> {
    await this.kv.delete(signInKeys.totp(personId));
  }

  async useTotpStep(personId: string, step: number): Promise<boolean> {
    for (;;) {
      const entry = await this.kv.get<TotpFactor>(signInKeys.totp(personId));
      const factor = entry.value;
      if (!factor || (factor.lastStep !== null && step <= factor.lastStep)) return false;
      const next = { ...factor, lastStep: step };
      if (await new KvWrite().check(entry).set(entry.key, next).commit(this.kv)) return true;
    }
  }

  async setRecoveryCodes(personId: string, hashes: string[]): Promise<void> {
    const generationKey = signInKeys.recoveryGeneration(personId);
    for (;;) {
      // The generation key orders replacements: of two at once, one commits and the other
      // starts again from its result (no mix of both lists).
      const generation = await this.kv.get<number>(generationKey);
      const write = new KvWrite().check(generation).set(generationKey, (generation.value ?? 0) + 1);
      for await (const entry of this.kv.list({ prefix: signInKeys.recoveryCodes(personId) })) {
        write.delete(entry.key);
      }
      for (const hash of hashes) write.set(signInKeys.recoveryCode(personId, hash), null);
      if (await write.commit(this.kv)) return;
    }
  }

  async useRecoveryCode(personId: string, hash: string): Promise<boolean> {
    const entry = await this.kv.get(signInKeys.recoveryCode(personId, hash));
    if (entry.versionstamp === null) return false;
    return await new KvWrite().check(entry).delete(entry.key).commit(this.kv);
  }

  async recoveryCodesLeft(personId: string): Promise<number> {
    let count = 0;
    for await (const _ of this.kv.list({ prefix: signInKeys.recoveryCodes(personId) })) count++;
    return count;
  }
}
