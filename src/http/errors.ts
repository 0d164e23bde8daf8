/**
 * The one place where errors become HTTP responses.
 *
 * Every 4xx/5xx body has the shape `{"error": {"code", "message", "field"?}}`.
 *
 * @module
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import { storageFailure } from "../store/storage_health.ts";

/** The `Retry-After` of a 503 `storage_unavailable`, in seconds. */
export const STORAGE_RETRY_AFTER_SECONDS = 30;

/** The JSON error body every failing response carries. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/**
 * An error that carries its HTTP status and a stable snake_case code.
 *
 * @example
 * ```ts
 * throw new ApiError(404, "form_not_found", `Form "${formId}" is not published`, "formId");
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

  /** The JSON body of this error. */
  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.field ? { field: this.field } : {}),
      },
    };
  }
}

/**
 * The dotted path of a zod issue under `prefix`: `values.age`, `fields.0.id`; `prefix` alone
 * (or "" ) for an issue about the whole value.
 *
 * @example
 * ```ts
 * issuePath({ path: ["age"] }, "values"); // "values.age"
 * ```
 */
export function issuePath(issue: { path: readonly PropertyKey[] }, prefix = ""): string {
  return [prefix, ...issue.path.map(String)].filter(Boolean).join(".");
}

/**
 * Every issue of a zod error as `path: message`, joined with "; " and cut to `maxChars`:
 * the reason a quarantine row gives (`values.age: Expected a number, got "x"`).
 *
 * @example
 * ```ts
 * formatIssues(parsed.error, "values", 1000);
 * ```
 */
export function formatIssues(error: ZodError, prefix: string, maxChars: number): string {
  const text = error.issues.map((issue) => {
    const path = issuePath(issue, prefix);
    return path ? `${path}: ${issue.message}` : issue.message;
  }).join("; ");
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** Turns the first issue of a zod error into a 400 naming the field. */
export function validationError(error: ZodError, prefix = ""): ApiError {
  const issue = error.issues[0];
  const path = issuePath(issue, prefix);
  const field = issue.code === "unrecognized_keys" ? issue.keys[0] : path || undefined;
  const message = issue.code === "unrecognized_keys"
    ? `Unknown field "${issue.keys[0]}"`
    : `Invalid ${path || "body"}: ${issue.message}`;
  return new ApiError(400, "invalid_request", message, field);
}

/**
 * Builds the JSON error response for an error: storage failures (disk full, read-only) become
 * a 503 `storage_unavailable` with `Retry-After`, running out of file descriptors a 503
 * `server_busy`, unknown errors a logged 500.
 */
export function errorResponse(err: unknown, c: Context): Response {
  if (err instanceof ApiError) {
    return c.json(err.toBody(), err.status, err.headers);
  }
  // Hono's own errors (for example a malformed request the router rejects).
  const status = (err as { status?: unknown })?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return c.json(
      { error: { code: "bad_request", message: (err as Error).message || "Bad request" } },
      status as ContentfulStatusCode,
    );
  }
  // A full disk or a read-only data dir: nothing was saved, and saying so is the answer.
  const storage = storageFailure(err);
  if (storage) {
    return c.json(
      {
        error: {
          code: "storage_unavailable",
          message: `Storage unavailable (${storage}): nothing was saved; retry later`,
        },
      },
      503,
      { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) },
    );
  }
  // Out of file descriptors (EMFILE/ENFILE): the process is at its limit, not broken.
  if (/too many open files|os error 2[34]\b/i.test((err as Error)?.message ?? "")) {
    return c.json(
      { error: { code: "server_busy", message: "The server is at its open-file limit; retry" } },
      503,
      { "Retry-After": "5" },
    );
  }
  console.error(JSON.stringify({
    level: "error",
    msg: "Unhandled error",
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    stack: err instanceof Error ? err.stack : undefined,
  }));
  return c.json({ error: { code: "internal", message: "Internal server error" } }, 500);
}

/** The 404 for paths no route matches. */
export function notFoundResponse(c: Context): Response {
  return c.json(
    { error: { code: "not_found", message: `No route for ${c.req.method} ${c.req.path}` } },
    404,
  );
}
