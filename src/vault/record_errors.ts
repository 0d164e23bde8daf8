/**
 * The domain errors of the owner's record operations (src/vault/service.ts).
 *
 * @module
 */
import { Conflict, Invalid, NotFound } from "../errors/index.ts";

/**
 * The `record_not_found` of a record that is not there (or was deleted).
 *
 * @example
 * ```ts
 * throw recordNotFound("contact", recordId);
 * ```
 */
export function recordNotFound(formId: string, recordId: string): NotFound {
  return new NotFound(
    "record_not_found",
    `No record "${recordId}" in form "${formId}"`,
    "recordId",
  );
}

/** The `conflict` of a record that kept changing under a write. */
export function recordConflict(recordId: string): Conflict {
  return new Conflict("conflict", `Record "${recordId}" kept changing; try again`);
}

/** The `invalid_request` of a page cursor that is not one of the list's own. */
export function invalidCursor(): Invalid {
  return new Invalid("invalid_request", "Invalid cursor: not a cursor of this list", "cursor");
}
