/**
 * A person's own sign-in settings (the console's Security page): changing the password, a TOTP
 * second factor (set up with a code, removed), passkeys (registered, removed), recovery codes
 * (ten new ones replace the old). Each change writes its audit event: `password_set`,
 * `second_factor_added`, `second_factor_removed`, `passkey_added`, `passkey_removed`.
 *
 * A new TOTP secret is shown once and sent back with the first code ({@link Security.addTotp}):
 * it is stored only when that code is right. Ten recovery codes come with a TOTP factor set up
 * when the person has none left (a passkey added first leaves them to the page's "Make
 * new recovery codes"); removing the last second factor (no TOTP, no passkey) deletes the
 * recovery codes too.
 *
 * @module
 */
import { actionBy, type AuditLog } from "../audit/sink.ts";
import { Conflict, Invalid } from "../errors/index.ts";
import type { PeoplePort, Person } from "../store/ports/people.ts";
import type { Passkey, SignInFactorsPort } from "../store/ports/sign_in_factors.ts";
import type { TicketsPort } from "../store/ports/tickets.ts";
import {
  passkeyRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
  type RelyingParty,
  verifyPasskeyRegistration,
} from "./passkeys.ts";
import { checkPassword, hashPassword, verifyPassword } from "./password.ts";
import { newRecoveryCodes } from "./recovery_codes.ts";
import { consumeTicket, issueTicket } from "./tickets.ts";
import { newTotpSecret, verifyTotp } from "./totp.ts";

/** Who acts: the signed-in person (a console session). */
export type Actor = { personId: string; tokenId: string | null };

/** What the Security page's changes read and write. */
export interface SecurityDeps {
  people: PeoplePort;
  factors: SignInFactorsPort;
  tickets: TicketsPort;
  audit: AuditLog;
}

/**
 * A person's own sign-in settings.
 *
 * @example
 * ```ts
 * const security = new Security({ people, factors, tickets, audit });
 * const codes = await security.addTotp(session, secret, "123456"); // ten recovery codes, or null
 * ```
 */
export class Security {
  constructor(private deps: SecurityDeps) {}

  /**
   * Changes the password: `current` must be right (else `Invalid` `wrong_password`), `next`
   * must meet the rules (else `Invalid` `weak_password`).
   */
  async changePassword(who: Actor, current: string, next: string): Promise<void> {
    const person = await this.#person(who);
    const { ok } = person.passwordHash
      ? await verifyPassword(current, person.passwordHash)
      : { ok: false };
    if (!ok) {
      throw new Invalid("wrong_password", "The current password is not right.", "current");
    }
    checkPassword(next);
    const passwordHash = await hashPassword(next);
    const updatedAt = new Date().toISOString();
    await this.deps.people.update(person.id, (p) => ({ ...p, passwordHash, updatedAt }));
    this.deps.audit.record(actionBy(who, "password_set"));
  }

  /** A new TOTP secret to show (not stored until {@link Security.addTotp} confirms it). */
  newTotpSecret(): string {
    return newTotpSecret();
  }

  /**
   * Stores the TOTP `secret` when `code` is right for it (else `Invalid` `wrong_code`); answers
   * ten new recovery codes when the person had none left, else null.
   */
  async addTotp(who: Actor, secret: string, code: string): Promise<string[] | null> {
    if (!/^[A-Z2-7]{32}$/.test(secret)) {
      throw new Invalid("invalid_request", "The set-up form is damaged: start again.");
    }
    const step = verifyTotp(secret, code, null);
    if (step === null) {
      throw new Invalid(
        "wrong_code",
        "That code is not right. Check the clock of your phone and type the code it shows now.",
        "code",
      );
    }
    const first = (await this.deps.factors.recoveryCodesLeft(who.personId)) === 0;
    await this.deps.factors.setTotp(who.personId, {
      secret,
      lastStep: step,
      createdAt: new Date().toISOString(),
    });
    this.deps.audit.record(actionBy(who, "second_factor_added", { detail: { kind: "totp" } }));
    return first ? await this.newRecoveryCodes(who) : null;
  }

  /** Removes the TOTP factor (and the recovery codes, when no passkey is left). */
  async removeTotp(who: Actor): Promise<void> {
    if (!(await this.deps.factors.getTotp(who.personId))) return;
    await this.deps.factors.clearTotp(who.personId);
    this.deps.audit.record(actionBy(who, "second_factor_removed", { detail: { kind: "totp" } }));
    await this.#dropCodesWhenNoFactor(who.personId);
  }

  /** Ten new recovery codes (shown once), replacing any left. */
  async newRecoveryCodes(who: Actor): Promise<string[]> {
    const { codes, hashes } = newRecoveryCodes();
    await this.deps.factors.setRecoveryCodes(who.personId, hashes);
    return codes;
  }

  /** The person's passkeys, oldest first. */
  passkeys(who: Actor): Promise<Passkey[]> {
    return this.deps.factors.list(who.personId);
  }

  /** Starts registering a passkey: the browser's options and the ticket keeping the challenge. */
  async passkeyOptions(
    rp: RelyingParty,
    who: Actor,
  ): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; ticket: string }> {
    const person = await this.#person(who);
    const options = await passkeyRegistrationOptions(
      rp,
      person,
      await this.deps.factors.list(person.id),
    );
    const ticket = await issueTicket(
      this.deps.tickets,
      "webauthn",
      person.id,
      { challenge: options.challenge },
      5 * 60_000,
    );
    return { options, ticket };
  }

  /**
   * Finishes registering a passkey named `name`. Throws `Invalid` (`passkey_rejected`) when the
   * ceremony expired or did not verify, `Conflict` (`passkey_taken`) when registered already.
   */
  async addPasskey(
    rp: RelyingParty,
    who: Actor,
    ticket: unknown,
    response: RegistrationResponseJSON,
    name: string,
  ): Promise<void> {
    const ceremony = await consumeTicket(this.deps.tickets, ticket, "webauthn");
    const challenge = ceremony?.data.challenge;
    if (ceremony?.personId !== who.personId || typeof challenge !== "string") {
      throw new Invalid("passkey_rejected", "The passkey request expired: try again.");
    }
    const passkey = await verifyPasskeyRegistration(rp, response, challenge, who.personId, name);
    if (await this.deps.factors.add(passkey) === "taken") {
      throw new Conflict("passkey_taken", "This passkey is registered already.");
    }
    this.deps.audit.record(
      actionBy(who, "passkey_added", { target: { kind: "passkey", id: passkey.credentialId } }),
    );
  }

  /** Removes a passkey of the person (and the recovery codes, when no factor is left). */
  async removePasskey(who: Actor, credentialId: string): Promise<boolean> {
    if (!(await this.deps.factors.remove(who.personId, credentialId))) return false;
    this.deps.audit.record(
      actionBy(who, "passkey_removed", { target: { kind: "passkey", id: credentialId } }),
    );
    await this.#dropCodesWhenNoFactor(who.personId);
    return true;
  }

  async #hasSecondFactor(personId: string): Promise<boolean> {
    const { factors } = this.deps;
    return (await factors.getTotp(personId)) !== null || (await factors.list(personId)).length > 0;
  }

  async #dropCodesWhenNoFactor(personId: string): Promise<void> {
    if (!(await this.#hasSecondFactor(personId))) {
      await this.deps.factors.setRecoveryCodes(personId, []);
    }
  }

  async #person(who: Actor): Promise<Person> {
    const person = await this.deps.people.get(who.personId);
    if (!person) throw new Invalid("invalid_request", "Your account is gone: sign in again.");
    return person;
  }
}
