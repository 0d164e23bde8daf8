/**
 * The one place where errors become HTTP responses: every kind of domain error
 * (`src/errors/`) has its status and headers here, and every 4xx/5xx body has the shape
 * `{"error": {"code", "message", "field"?}}`.
 *
 * @module
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import {
  DomainError,
  type ErrorKind,
  RateLimited,
  Unauthenticated,
  Unavailable,
  UpstreamFailed,
} from "../errors/index.ts";
import { storageFailure } from "./storage_health.ts";

/** The `Retry-After` of a 503 `storage_unavailable`, in seconds. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/** The JSON error body every failing response carries. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** The status of each kind of domain error. */
export const KIND_STATUS: Readonly<Record<ErrorKind, ContentfulStatusCode>> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  quota_exceeded: 413,
  unprocessable: 422,
  rate_limited: 429,
  upstream_failed: 502,
  unavailable: 503,
};

/**
 * An error about HTTP itself, which no domain kind describes (a request's media type, a
 * byte range outside the file): thrown by routes and `src/http` only.
 *
 * @example
 * ```ts
 * throw new ApiError(415, "unsupported_media_type", "Content-Type must be application/json");
 * ```
 */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** A known error as the parts of its response. */
export interface HttpError {
  status: ContentfulStatusCode;
  body: ErrorBody;
  headers: Record<string, string>;
}

function body(code: string, message: string, field?: string): ErrorBody {
  return { error: { code, message, ...(field ? { field } : {}) } };
}

function domainHeaders(err: DomainError): Record<string, string> {
  if (err instanceof Unauthenticated && err.challenge) {
    return { "WWW-Authenticate": err.challenge };
  }
  if (err instanceof RateLimited || err instanceof Unavailable) {
    return { "Retry-After": String(err.retryAfterSeconds) };
  }
  return {};
}

function domainStatus(err: DomainError): ContentfulStatusCode {
  // A relay's own client error is passed on with its status (a 5xx of it is a 502).
  if (err instanceof UpstreamFailed && err.upstreamStatus && err.upstreamStatus < 500) {
    return err.upstreamStatus as ContentfulStatusCode;
  }
  return KIND_STATUS[err.kind];
}

/**
 * The status, body and headers of a domain error or an `ApiError`; null for anything else.
 *
 * @example
 * ```ts
 * httpError(new NotFound("form_not_found", "No form")); // { status: 404, body, headers: {} }
 * ```
 */
export function httpError(err: unknown): HttpError | null {
  if (err instanceof DomainError) {
    return {
      status: domainStatus(err),
      body: body(err.code, err.message, err.field),
      headers: domainHeaders(err),
    };
  }
  if (err instanceof ApiError) {
    return {
      status: err.status,
      body: body(err.code, err.message, err.field),
      headers: err.headers ?? {},
    };
  }
  return null;
}

/** The domain error of a failure outside the domain: full or read-only storage, no fds. */
function environmentFailure(err: unknown): Unavailable | null {
  // A full disk or a read-only data dir: nothing was saved, and saying so is the answer.
  const storage = storageFailure(err);
  if (storage) {
    return new Unavailable(
      "storage_unavailable",
      `Storage unavailable (${storage}): nothing was saved; retry later`,
      STORAGE_RETRY_AFTER_SECONDS,
    );
  }
  // Out of file descriptors (EMFILE/ENFILE): the process is at its limit, not broken.
  if (/too many open files|os error 2[34]\b/i.test((err as Error)?.message ?? "")) {
    return new Unavailable("server_busy", "The server is at its open-file limit; retry", 5);
  }
  return null;
}

/**
 * Builds the JSON error response for an error: domain errors and `ApiError`s by their kind
 * and status, storage failures (disk full, read-only) a 503 `storage_unavailable` with
 * `Retry-After`, running out of file descriptors a 503 `server_busy`, unknown errors a
 * logged 500.
 *
 * @example
 * ```ts
 * app.onError(errorResponse);
 * ```
 */
export function errorResponse(err: unknown, c: Context): Response {
  const known = httpError(err);
  if (known) return c.json(known.body, known.status, known.headers);
  // Hono's own errors (for example a malformed request the router rejects).
  const status = (err as { status?: unknown })?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return c.json(
      body("bad_request", (err as Error).message || "Bad request"),
      status as ContentfulStatusCode,
    );
  }
  const environment = httpError(environmentFailure(err));
  if (environment) return c.json(environment.body, environment.status, environment.headers);
  console.error(JSON.stringify({
    level: "error",
    msg: "Unhandled error",
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  }));
  return c.json(body("internal", "Internal server error"), 500);
}

/** The 404 for paths no route matches. */
export function notFoundResponse(c: Context): Response {
  return c.json(body("not_found", `No route for ${c.req.method} ${c.req.path}`), 404);
}
