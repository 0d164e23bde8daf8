/**
 * The sign-in factors port on PostgreSQL (tables of migration 0002_sign_in): each atomic step
 * is one conditional statement: a passkey's counter and a TOTP factor's last step move by an
 * `update … where` the new value is higher, a recovery code is used by deleting its row (of two
 * deletes at once, one finds it).
 *
 * @module
 */
import type { Passkey, SignInFactorsPort, TotpFactor } from "../ports/sign_in_factors.ts";
import type { Sql } from "./db.ts";
import { json } from "./json.ts";

type PasskeyRow = { data: Passkey; counter: string; last_used_at: string | null };

const passkey = (row: PasskeyRow): Passkey => ({
  ...row.data,
  counter: Number(row.counter),
  lastUsedAt: row.last_used_at,
});

/**
 * The PostgreSQL sign-in factors store.
 *
 * @example
 * ```ts
 * const factors = new PgSignInFactors(sql);
 * await factors.useRecoveryCode(personId, hash);
 * ```
 */
export class PgSignInFactors implements SignInFactorsPort {
  constructor(private sql: Sql) {}

  async add(p: Passkey): Promise<"added" | "taken"> {
    const rows = await this.sql`
      insert into vault_passkeys (credential_id, person_id, counter, last_used_at, data)
      values (${p.credentialId}, ${p.personId}, ${p.counter}, ${p.lastUsedAt}, ${json(p)}::jsonb)
      on conflict (credential_id) do nothing
      returning credential_id`;
    return rows.length === 1 ? "added" : "taken";
  }

  async byCredentialId(credentialId: string): Promise<Passkey | null> {
    const rows = await this.sql<PasskeyRow[]>`
      select data, counter, last_used_at from vault_passkeys where credential_id = ${credentialId}`;
    return rows[0] ? passkey(rows[0]) : null;
  }

  async list(personId: string): Promise<Passkey[]> {
    const rows = await this.sql<PasskeyRow[]>`
      select data, counter, last_used_at from vault_passkeys where person_id = ${personId}
      order by data->>'createdAt', credential_id`;
    return rows.map(passkey);
  }

  async updateCounter(credentialId: string, counter: number, at: string): Promise<boolean> {
    const rows = await this.sql`
      update vault_passkeys set counter = ${counter}, last_used_at = ${at}
      where credential_id = ${credentialId}
        and (counter < ${counter} or (counter = 0 and ${counter}::bigint = 0))
      returning credential_id`;
    return rows.length === 1;
  }

  async remove(personId: string, credentialId: string): Promise<boolean> {
    const rows = await this.sql`
      delete from vault_passkeys where credential_id = ${credentialId} and person_id = ${personId}
      returning credential_id`;
    return rows.length === 1;
  }

  async getTotp(personId: string): Promise<TotpFactor | null> {
    const rows = await this.sql<{ secret: string; last_step: string | null; created_at: string }[]>`
      select secret, last_step, created_at from vault_totp_factors where person_id = ${personId}`;
    const row = rows[0];
    if (!row) return null;
    const lastStep = row.last_step === null ? null : Number(row.last_step);
    return { secret: row.secret, lastStep, createdAt: row.created_at };
  }

  async setTotp(personId: string, factor: TotpFactor): Promise<void> {
    await this.sql`
      insert into vault_totp_factors (person_id, secret, last_step, created_at)
      values (${personId}, ${factor.secret}, ${factor.lastStep}, ${factor.createdAt})
      on conflict (person_id) do update set secret = excluded.secret,
        last_step = excluded.last_step, created_at = excluded.created_at`;
  }

  async clearTotp(personId: string): Promise<void> {
    await this.sql`delete from vault_totp_factors where person_id = ${personId}`;
  }

  async useTotpStep(personId: string, step: number): Promise<boolean> {
    const rows = await this.sql`
      update vault_totp_factors set last_step = ${step}
      where person_id = ${personId} and (last_step is null or last_step < ${step})
      returning person_id`;
    return rows.length === 1;
  }

  async setRecoveryCodes(personId: string, hashes: string[]): Promise<void> {
    await this.sql.begin(async (tx) => {
      // One replacement per person at a time: of two at once, the second sees the first's.
      await tx`select pg_advisory_xact_lock(hashtext('recovery_codes'), hashtext(${personId}))`;
      await tx`delete from vault_recovery_codes where person_id = ${personId}`;
      if (hashes.length > 0) {
        const rows = hashes.map((hash) => ({ person_id: personId, code_hash: hash }));
        await tx`insert into vault_recovery_codes ${tx(rows)} on conflict do nothing`;
      }
    });
  }

  async useRecoveryCode(personId: string, hash: string): Promise<boolean> {
    const rows = await this.sql`
      delete from vault_recovery_codes where person_id = ${personId} and code_hash = ${hash}
      returning code_hash`;
    return rows.length === 1;
  }

  async recoveryCodesLeft(personId: string): Promise<number> {
    const [{ n }] = await this.sql<{ n: number }[]>`
      select count(*)::int as n from vault_recovery_codes where person_id = ${personId}`;
    return n;
  }
}
