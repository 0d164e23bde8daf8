/**
 * The HTTP errors of the owner's record operations (src/vault/service.ts).
 *
 * @module
 */
import { ApiError } from "../http/errors.ts";

/**
 * The 404 of a record that is not there (or was deleted).
 *
 * @example
 * ```ts
 * throw recordNotFound("contact", recordId);
 * ```
 */
export function recordNotFound(formId: string, recordId: string): ApiError {
  return new ApiError(
    404,
    "record_not_found",
    `No record "${recordId}" in form "${formId}"`,
    "recordId",
  );
}

/** The 409 of a record that kept changing under a write. */
export function recordConflict(recordId: string): ApiError {
  return new ApiError(409, "conflict", `Record "${recordId}" kept changing; try again`);
}

/** The 400 of a page cursor that is not one of the list's own. */
export function invalidCursor(): ApiError {
  return new ApiError(
    400,
    "invalid_request",
    "Invalid cursor: not a cursor of this list",
    "cursor",
  );
}
