/**
 * Domain errors: typed, HTTP-free failures (`kinds.ts`) and zod issues in their words
 * (`zod_issues.ts`). `src/http/errors.ts` turns them into responses.
 *
 * @module
 */
export {
  Conflict,
  DomainError,
  type ErrorKind,
  Forbidden,
  Gone,
  Invalid,
  NotFound,
  QuotaExceeded,
  RateLimited,
  TooLarge,
  Unauthenticated,
  Unavailable,
  Unprocessable,
  UpstreamFailed,
} from "./kinds.ts";
export { formatIssues, issuePath, validationError } from "./zod_issues.ts";
