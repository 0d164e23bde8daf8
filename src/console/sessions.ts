/**
 * Console sessions, server-side (the sessions port). The browser holds only a random secret in
 * an HttpOnly cookie; the store keys the session by the secret's SHA-256, so a copy of the store
 * yields no usable cookie. A session ends after `idleSeconds` without a request, at most
 * `maxSeconds` after sign-in, when its owner token is revoked, or on sign-out (one session, or
 * every session of the user).
 *
 * @module
 */
import type { OwnerPrincipal, Principal } from "../auth/index.ts";
import { timingSafeEqual } from "../crypto/hmac.ts";
import type { ConsoleSession, SessionsPort } from "../store/ports/sessions.ts";

/** The principal of token `tokenId`, or null (revoked or unknown): see `principalOfToken`. */
export type PrincipalLookup = (tokenId: string) => Promise<Principal | null>;

/** Lifetimes of a session, in seconds. */
export interface SessionLimits {
  idleSeconds: number;
  maxSeconds: number;
}

/** A live session with its store key: it stands for the owner principal it was made from. */
export type Session = ConsoleSession & OwnerPrincipal & { idHash: string };

/** Writes the idle clock at most this often (one write per minute, not per request). */
const TOUCH_EVERY_MS = 60_000;

function randomSecret(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest).toHex();
}

/**
 * The session store.
 *
 * @example
 * ```ts
 * const sessions = new Sessions(store.sessions, (id) => principalOfToken(identity, id), {
 *   idleSeconds: 1800,
 *   maxSeconds: 43200,
 * });
 * const { cookie } = await sessions.create(owner);
 * const session = await sessions.get(cookie);
 * ```
 */
export class Sessions {
  constructor(
    private store: SessionsPort,
    private principalOf: PrincipalLookup,
    readonly limits: SessionLimits,
    private now: () => number = Date.now,
  ) {}

  /** Starts a session for an owner; returns the cookie secret (never stored). */
  async create(owner: OwnerPrincipal): Promise<{ cookie: string; session: Session }> {
    const cookie = randomSecret();
    const idHash = await sha256Hex(cookie);
    const now = this.now();
    const row: ConsoleSession = {
      userId: owner.userId,
      tokenId: owner.tokenId,
      csrf: randomSecret(),
      createdAt: now,
      seenAt: now,
    };
    await this.store.create(idHash, row, this.limits.maxSeconds * 1000);
    return { cookie, session: { ...row, kind: "owner", idHash } };
  }

  /**
   * The live session of a cookie secret, or null (unknown, expired, or its token revoked).
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
    const owner = expired ? null : await this.principalOf(row.tokenId);
    if (owner?.kind !== "owner" || owner.userId !== row.userId) {
      await this.store.delete(row.userId, idHash);
      return null;
    }
    if (now - row.seenAt >= TOUCH_EVERY_MS) {
      const left = row.createdAt + this.limits.maxSeconds * 1000 - now;
      await this.store.touch(idHash, now, left);
      return { ...row, seenAt: now, kind: "owner", idHash };
    }
    return { ...row, kind: "owner", idHash };
  }

  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: Session, presented: string | undefined | null): boolean {
    return typeof presented === "string" && timingSafeEqual(presented, session.csrf);
  }

  /** Ends one session. */
  async end(session: Session): Promise<void> {
    await this.store.delete(session.userId, session.idHash);
  }

  /** Ends every session of `userId` ("sign out everywhere"); returns how many. */
  endAll(userId: string): Promise<number> {
    return this.store.deleteAll(userId);
  }
}
