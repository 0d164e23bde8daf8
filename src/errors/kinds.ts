/**
 * The errors the domain throws: one class per kind of failure, each carrying the
 * specification's snake_case `code`, a message, and the offending `field` where there is one.
 * None knows HTTP: `src/http/errors.ts` is the one place a kind becomes a status code and
 * headers.
 *
 * @module
 */

/** Every kind of domain error (the discriminant `src/http/errors.ts` maps to a status). */
export type ErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "too_large"
  | "quota_exceeded"
  | "unprocessable"
  | "rate_limited"
  | "upstream_failed"
  | "unavailable";

/**
 * The base of every domain error: a stable snake_case `code`, a message for people, and the
 * offending field (`values.age`, `formId`) when the failure is about one.
 *
 * @example
 * ```ts
 * if (err instanceof DomainError) console.log(err.kind, err.code);
 * ```
 */
export abstract class DomainError extends Error {
  /** What kind of failure this is. */
  abstract readonly kind: ErrorKind;

  constructor(readonly code: string, message: string, readonly field?: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The input breaks a rule (a malformed value, a missing field, a mismatch between parts). */
export class Invalid extends DomainError {
  readonly kind = "invalid";
}

/**
 * Nobody known is asking: no credential, or one that is unknown or revoked. `challenge`
 * names the scheme to present (`Bearer`, `Bearer realm="metrics"`) when the answer says so.
 *
 * @example
 * ```ts
 * throw new Unauthenticated("unauthorized", "Invalid or revoked token", { challenge: "Bearer" });
 * ```
 */
export class Unauthenticated extends DomainError {
  readonly kind = "unauthenticated";
  /** The authentication scheme the caller should present, when it is to be named. */
  readonly challenge?: string;

  constructor(code: string, message: string, options: { challenge?: string } = {}) {
    super(code, message);
    this.challenge = options.challenge;
  }
}

/** The caller is known (or holds a capability) but may not do this: a wrong token kind, a wrong edit token or signature, an expired link, an origin the form does not allow. */
export class Forbidden extends DomainError {
  readonly kind = "forbidden";
}

/** The thing does not exist, or belongs to someone else (which answers the same way). */
export class NotFound extends DomainError {
  readonly kind = "not_found";
}

/** The request contradicts the current state: the id is taken, the row changed meanwhile, the delivery is being sent now. */
export class Conflict extends DomainError {
  readonly kind = "conflict";
}

/** The thing existed and is no longer available (an edit window that is over). */
export class Gone extends DomainError {
  readonly kind = "gone";
}

/** A value exceeds its size limit (a manifest, a record, a file, a request body). */
export class TooLarge extends DomainError {
  readonly kind = "too_large";
}

/** Storing this would exceed a quota (a recipient's total of uploaded bytes). */
export class QuotaExceeded extends DomainError {
  readonly kind = "quota_exceeded";
}

/** The input is well formed but cannot be processed (a stored file that does not decrypt). */
export class Unprocessable extends DomainError {
  readonly kind = "unprocessable";
}

/**
 * Too many requests from one client; `retryAfterSeconds` says when a retry can succeed.
 *
 * @example
 * ```ts
 * throw new RateLimited("rate_limited", "Too many requests; retry in 3 s", 3);
 * ```
 */
export class RateLimited extends DomainError {
  readonly kind = "rate_limited";

  constructor(code: string, message: string, readonly retryAfterSeconds: number) {
    super(code, message);
  }
}

/**
 * A service this one depends on (the relay a vault pulls from) failed or refused. When it
 * answered with a client error, `upstreamStatus` is that answer's status, passed on as is.
 *
 * @example
 * ```ts
 * throw new UpstreamFailed("relay_unreachable", "Relay http://relay did not answer");
 * ```
 */
export class UpstreamFailed extends DomainError {
  readonly kind = "upstream_failed";
  /** The status of the upstream's own error answer, when it gave one. */
  readonly upstreamStatus?: number;

  constructor(code: string, message: string, options: { upstreamStatus?: number } = {}) {
    super(code, message);
    this.upstreamStatus = options.upstreamStatus;
  }
}

/**
 * This process cannot serve now (storage full or read-only, out of file descriptors);
 * `retryAfterSeconds` says when to try again.
 *
 * @example
 * ```ts
 * throw new Unavailable("server_busy", "The server is at its open-file limit; retry", 5);
 * ```
 */
export class Unavailable extends DomainError {
  readonly kind = "unavailable";

  constructor(code: string, message: string, readonly retryAfterSeconds: number) {
    super(code, message);
  }
}
