/**
 * Signing a person in: a password (then, for a person with a second factor, a TOTP code, a
 * passkey or a recovery code), or a passkey alone (discoverable: no email asked). Pages
 * (src/console) ask; this decides, takes the sign-in limits, and writes the audit events
 * `sign_in`, `sign_in_failed` and `recovery_code_used`.
 *
 * No user enumeration: an unknown email, a person without a password and a wrong password all
 * answer `{ kind: "refused" }` after one Argon2id hash each ({@link dummyVerify}), so neither the
 * answer nor its time tells which emails exist. The audit names the person only when the email
 * is theirs, never the email or the password.
 *
 * Between the password and the second factor the person holds a `second_factor` ticket (a
 * random secret; the store keeps its SHA-256), valid {@link SECOND_STEP_MS}, for
 * {@link SECOND_STEP_TRIES} wrong codes: each answer consumes it, and a wrong one gets a new
 * ticket with one try less.
 *
 * @module
 */
import type { AuditLog } from "../audit/sink.ts";
import type { PeoplePort, Person } from "../store/ports/people.ts";
import type { SignInFactorsPort } from "../store/ports/sign_in_factors.ts";
import type { TicketKind, TicketsPort } from "../store/ports/tickets.ts";
import {
  type AuthenticationResponseJSON,
  passkeyAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  type RelyingParty,
  verifyPasskeyAuthentication,
} from "./passkeys.ts";
import { checkPassword, dummyVerify, hashPassword, verifyPassword } from "./password.ts";
import { recoveryCodeHash } from "./recovery_codes.ts";
import type { SignInLimits } from "./sign_in_limits.ts";
import { consumeTicket, issueTicket, ticketHashOf } from "./tickets.ts";
import { verifyTotp } from "./totp.ts";

/** How long the second step may wait after the password. */
export const SECOND_STEP_MS = 10 * 60_000;
/** Wrong second-factor answers allowed before the password is asked again. */
export const SECOND_STEP_TRIES = 5;
/** How long a passkey ceremony's challenge is kept. */
const CEREMONY_MS = 5 * 60_000;

/** The second factors a person has. */
export interface SecondFactors {
  totp: boolean;
  passkeys: number;
  recoveryCodes: number;
}

/** Whether a person with these factors is asked for a second one (TOTP or a passkey). */
export function hasSecondFactor(f: SecondFactors): boolean {
  return f.totp || f.passkeys > 0;
}

/** A signed-in person and how: what the session records. */
export interface SignedIn {
  kind: "signed_in";
  person: Person;
  method: "password" | "passkey";
  secondFactor: boolean;
}

/** The password was right and a second factor is needed: `ticket` is the person's to hold. */
export interface SecondStep {
  kind: "second_step";
  ticket: string;
  factors: SecondFactors;
}

/** A wrong answer: nothing tells which part was wrong. */
export interface Refused {
  kind: "refused";
}

/** A second-factor answer: a TOTP code or a recovery code. */
export type SecondAnswer = { totp: string } | { recovery: string };

/** What sign-in reads and writes. */
export interface SignInDeps {
  people: PeoplePort;
  factors: SignInFactorsPort;
  tickets: TicketsPort;
  limits: SignInLimits;
  audit: AuditLog;
  now?: () => number;
}

/**
 * The sign-in steps of one instance.
 *
 * @example
 * ```ts
 * const signIn = new SignIn({ people, factors, tickets, limits, audit });
 * const outcome = await signIn.password(form.email, form.password, clientIp);
 * if (outcome.kind === "second_step") keepTicket(outcome.ticket);
 * ```
 */
export class SignIn {
  #now: () => number;

  constructor(private deps: SignInDeps) {
    this.#now = deps.now ?? Date.now;
  }

  /** The second factors of `personId`. */
  async factorsOf(personId: string): Promise<SecondFactors> {
    const { factors } = this.deps;
    const [totp, passkeys, recoveryCodes] = await Promise.all([
      factors.getTotp(personId),
      factors.list(personId),
      factors.recoveryCodesLeft(personId),
    ]);
    return { totp: totp !== null, passkeys: passkeys.length, recoveryCodes };
  }

  /**
   * The first step: `email` and `password` from `address`. Takes the sign-in limits first
   * (throws `RateLimited`); then signs in, asks for the second step, or refuses.
   */
  async password(
    email: string,
    password: string,
    address: string,
  ): Promise<SignedIn | SecondStep | Refused> {
    const normal = email.trim().toLowerCase();
    await this.#limited(address, normal, null);
    const person = normal ? await this.deps.people.byEmail(normal) : null;
    if (!person?.passwordHash) {
      await dummyVerify(password);
      return this.#refused(person?.id ?? null, "password");
    }
    const { ok, rehash } = await verifyPassword(password, person.passwordHash);
    if (!ok) return this.#refused(person.id, "password");
    // A password older than today's rules still signs in; only one that meets them is rehashed.
    if (rehash && passwordMeetsRules(password)) {
      await this.#storeHash(person.id, await hashPassword(password));
    }
    const factors = await this.factorsOf(person.id);
    if (!hasSecondFactor(factors)) return this.#signedIn(person, "password", false);
    const ticket = await this.#issue(
      "second_factor",
      person.id,
      { tries: 0, ...factors },
      SECOND_STEP_MS,
    );
    return { kind: "second_step", ticket, factors };
  }

  /**
   * The second step with a TOTP or recovery code, for the `second_factor` ticket the password
   * step gave. A wrong code answers a new ticket (one try less); an unknown, used or
   * expired ticket, or the last try, refuses (the password is asked again).
   */
  async secondFactor(
    ticket: string,
    answer: SecondAnswer,
    address: string,
  ): Promise<SignedIn | { kind: "retry"; ticket: string } | Refused> {
    const taken = await this.#consume(ticket, "second_factor");
    const person = taken?.personId ? await this.deps.people.get(taken.personId) : null;
    if (!taken || !person) return { kind: "refused" };
    try {
      await this.#limited(address, person.email, person.id);
    } catch (err) {
      // Limited: the ticket stays, for a try once the wait is over.
      await this.deps.tickets.save((await ticketHashOf(ticket))!, taken);
      throw err;
    }
    if ("totp" in answer) {
      const factor = await this.deps.factors.getTotp(person.id);
      const step = factor && verifyTotp(factor.secret, answer.totp, factor.lastStep, this.#now());
      if (step !== null && step !== undefined && factor) {
        if (await this.deps.factors.useTotpStep(person.id, step)) {
          return this.#signedIn(person, "password", true);
        }
      }
    } else {
      const hash = recoveryCodeHash(answer.recovery);
      if (hash && await this.deps.factors.useRecoveryCode(person.id, hash)) {
        this.deps.audit.record({ action: "recovery_code_used", personId: person.id });
        return this.#signedIn(person, "password", true);
      }
    }
    this.#refused(person.id, "second_factor");
    const tries = Number(taken.data.tries ?? 0) + 1;
    const left = taken.expiresAt - this.#now();
    if (tries >= SECOND_STEP_TRIES || left <= 0) return { kind: "refused" };
    return {
      kind: "retry",
      ticket: await this.#issue("second_factor", person.id, { ...taken.data, tries }, left),
    };
  }

  /**
   * The person and second factors a `second_factor` ticket waits for (to show the second
   * step), or null when it is unknown, used or expired. The ticket stays usable.
   */
  async pendingStep(
    ticket: string | undefined,
  ): Promise<{ personId: string; factors: SecondFactors } | null> {
    const hash = await ticketHashOf(ticket);
    const taken = hash ? await this.deps.tickets.consume(hash, "second_factor") : null;
    if (!hash || !taken?.personId) return null;
    await this.deps.tickets.save(hash, taken);
    const { totp, passkeys, recoveryCodes } = taken.data;
    return {
      personId: taken.personId,
      factors: {
        totp: totp === true,
        passkeys: Number(passkeys ?? 0),
        recoveryCodes: Number(recoveryCodes ?? 0),
      },
    };
  }

  /**
   * Starts a passkey ceremony: its options and the `webauthn` ticket keeping the challenge;
   * `personId` when it is the second step of that person's sign-in. Takes the address's
   * sign-in limit.
   */
  async passkeyOptions(
    rp: RelyingParty,
    address: string,
    personId: string | null = null,
  ): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; ticket: string }> {
    await this.#limited(address, null, personId);
    const options = await passkeyAuthenticationOptions(rp);
    const ticket = await this.#issue(
      "webauthn",
      personId,
      { challenge: options.challenge },
      CEREMONY_MS,
    );
    return { options, ticket };
  }

  /**
   * Finishes a passkey sign-in: the browser's `response` for the ceremony `ticket`. Alone
   * (`secondStep` null) it signs in whoever the passkey belongs to; as the second step it
   * must be a passkey of the `second_factor` ticket's person (that ticket is used up).
   */
  async passkey(
    rp: RelyingParty,
    ticket: unknown,
    response: AuthenticationResponseJSON,
    secondStep: string | null,
  ): Promise<SignedIn | Refused> {
    const ceremony = await this.#consume(ticket, "webauthn");
    const challenge = ceremony?.data.challenge;
    if (typeof challenge !== "string") return { kind: "refused" };
    const step = secondStep === null ? null : await this.#consume(secondStep, "second_factor");
    if (secondStep !== null && (!step?.personId || step.personId !== ceremony!.personId)) {
      return { kind: "refused" };
    }
    const passkey = await verifyPasskeyAuthentication(rp, response, challenge, this.deps.factors);
    const person = passkey && await this.deps.people.get(passkey.personId);
    if (!person || (step && step.personId !== person.id)) {
      return this.#refused(step?.personId ?? null, "passkey");
    }
    return step
      ? this.#signedIn(person, "password", true)
      : this.#signedIn(person, "passkey", false);
  }

  /**
   * Sets a person's password from a `set_password` ticket (used up, even when the password
   * breaks a rule: check it with `checkPassword` first). The person, or null when the ticket
   * is unknown, used or expired. Writes `password_set`.
   */
  async setPassword(ticket: unknown, password: string): Promise<Person | null> {
    const taken = await this.#consume(ticket, "set_password");
    if (!taken?.personId) return null;
    const person = await this.#storeHash(taken.personId, await hashPassword(password));
    if (person) this.deps.audit.record({ action: "password_set", personId: person.id });
    return person;
  }

  async #storeHash(personId: string, passwordHash: string): Promise<Person | null> {
    const updatedAt = new Date(this.#now()).toISOString();
    const person = await this.deps.people.update(personId, (p) => ({
      ...p,
      passwordHash,
      updatedAt,
    }));
    return person === "email_taken" ? null : person;
  }

  #issue(
    kind: TicketKind,
    personId: string | null,
    data: Record<string, unknown>,
    validMs: number,
  ): Promise<string> {
    return issueTicket(this.deps.tickets, kind, personId, data, validMs, this.#now());
  }

  #consume(secret: unknown, kind: TicketKind) {
    return consumeTicket(this.deps.tickets, secret, kind);
  }

  /** Takes the limits; a refusal is audited (for the person when known) and rethrown. */
  async #limited(address: string, email: string | null, personId: string | null) {
    try {
      await this.deps.limits.take(address, email);
    } catch (err) {
      this.deps.audit.record({
        action: "sign_in_failed",
        personId,
        outcome: "failure",
        detail: { reason: "limited" },
      });
      throw err;
    }
  }

  #refused(personId: string | null, reason: string): Refused {
    this.deps.audit.record({
      action: "sign_in_failed",
      personId,
      outcome: "failure",
      detail: { reason },
    });
    return { kind: "refused" };
  }

  #signedIn(person: Person, method: SignedIn["method"], secondFactor: boolean): SignedIn {
    this.deps.audit.record({
      action: "sign_in",
      personId: person.id,
      outcome: "ok",
      detail: { method, second_factor: secondFactor },
    });
    return { kind: "signed_in", person, method, secondFactor };
  }
}

/** Whether `password` meets today's rules (src/people/password.ts `checkPassword`). */
function passwordMeetsRules(password: string): boolean {
  try {
    checkPassword(password);
    return true;
  } catch {
    return false;
  }
}
