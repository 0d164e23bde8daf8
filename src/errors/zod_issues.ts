/**
 * Zod issues in the words of the error shape: the dotted path of an issue, every issue as
 * one line (the reason a quarantine row gives), and the first issue as an `Invalid` error.
 *
 * @module
 */
import type { ZodError } from "zod";
import { Invalid } from "./kinds.ts";

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

/**
 * The first issue of a zod error as an `invalid_request` naming the field.
 *
 * @example
 * ```ts
 * if (!parsed.success) throw validationError(parsed.error, "values");
 * ```
 */
export function validationError(error: ZodError, prefix = ""): Invalid {
  const issue = error.issues[0];
  const path = issuePath(issue, prefix);
  const field = issue.code === "unrecognized_keys" ? issue.keys[0] : path || undefined;
  const message = issue.code === "unrecognized_keys"
    ? `Unknown field "${issue.keys[0]}"`
    : `Invalid ${path || "body"}: ${issue.message}`;
  return new Invalid("invalid_request", message, field);
}
