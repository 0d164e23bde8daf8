/**
 * Console sessions, server-side (the sessions port). The browser holds only a random secret in
 * an HttpOnly cookie; the store keys the session by the secret's SHA-256, so a copy of the store
 * yields no usable cookie. A session stands for a person, with every scope (their role on each
 * database still decides, src/people/access.ts). It ends after `idleSeconds` without a request,
 * at most `maxSeconds` after sign-in, when the person is removed, or on sign-out (one session,
 * or every session of the person).
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/index.ts";
import { sha256Hex } from "../auth/tokens.ts";
import { timingSafeEqual } from "../crypto/hmac.ts";
import type { Person } from "../store/ports/people.ts";
import { SCOPES } from "../store/ports/person_tokens.ts";
import type { ConsoleSession, SessionsPort } from "../store/ports/sessions.ts";

/** The person `personId`, or null (removed or unknown): the people port's `get`. */
export type PersonLookup = (personId: string) => Promise<Person | null>;

/** How a sign-in happened, kept with its session. */
export type SignIn = Pick<ConsoleSession, "method" | "secondFactor" | "address" | "agent">;

/** Lifetimes of a session, in seconds. */
export interface SessionLimits {
  idleSeconds: number;
  maxSeconds: number;
}

/** A live session with its store key: it stands for its person, with every scope. */
export type Session = ConsoleSession & PersonPrincipal & { idHash: string };

/** The principal a session stands for. */
function sessionOf(row: ConsoleSession, person: Person, idHash: string): Session {
  return {
    ...row,
    kind: "person",
    instanceAdmin: person.instanceAdmin,
    scopes: new Set(SCOPES),
    tokenId: null,
    sessionId: idHash,
    idHash,
  };
}

/** Writes the idle clock at most this often (one write per minute, not per request). */
const TOUCH_EVERY_MS = 60_000;

function randomSecret(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

/**
 * The session store.
 *
 * @example
 * ```ts
 * const sessions = new Sessions(store.sessions, (id) => store.people.get(id), {
 *   idleSeconds: 1800,
 *   maxSeconds: 43200,
 * });
 * const { cookie } = await sessions.create(person, signIn);
 * const session = await sessions.get(cookie);
 * ```
 */
export class Sessions {
  constructor(
    private store: SessionsPort,
    private personOf: PersonLookup,
    readonly limits: SessionLimits,
    private now: () => number = Date.now,
  ) {}

  /** Starts a session for a person; returns the cookie secret (never stored). */
  async create(person: Person, signIn: SignIn): Promise<{ cookie: string; session: Session }> {
    const cookie = randomSecret();
    const idHash = await sha256Hex(cookie);
    const now = this.now();
    const row: ConsoleSession = {
      personId: person.id,
      csrf: randomSecret(),
      createdAt: now,
      seenAt: now,
      ...signIn,
      agent: signIn.agent.slice(0, 200),
    };
    await this.store.create(idHash, row, this.limits.maxSeconds * 1000);
    return { cookie, session: sessionOf(row, person, idHash) };
  }

  /**
   * The live session of a cookie secret, or null (unknown, expired, or its person removed).
   * Refreshes the idle clock.
   */
  async get(cookie: string | undefined): Promise<Session | null> {
    if (!cookie || cookie.length > 100) return null;
    const idHash = await sha256Hex(cookie);
    const row = await this.store.get(idHash);
    if (!row) return null;
    const now = this.now();
    const expired = now - row.seenAt > this.limits.idleSeconds * 1000 ||
      now - row.createdAt > this.limits.maxSeconds * 1000;
    const person = expired ? null : await this.personOf(row.personId);
    if (!person) {
      await this.store.delete(row.personId, idHash);
      return null;
    }
    if (now - row.seenAt >= TOUCH_EVERY_MS) {
      const left = row.createdAt + this.limits.maxSeconds * 1000 - now;
      await this.store.touch(idHash, now, left);
      return sessionOf({ ...row, seenAt: now }, person, idHash);
    }
    return sessionOf(row, person, idHash);
  }

  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: Session, presented: string | undefined | null): boolean {
    return typeof presented === "string" && timingSafeEqual(presented, session.csrf);
  }

  /** Ends one session. */
  async end(session: Session): Promise<void> {
    await this.store.delete(session.personId, session.idHash);
  }

  /** Ends every session of `personId` ("sign out everywhere", a removed person); how many. */
  endAll(personId: string): Promise<number> {
    return this.store.deleteAll(personId);
  }
}
