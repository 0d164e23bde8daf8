/**
 * Domain errors: typed, HTTP-free failures (`kinds.ts`) and zod issues in their words
 * (`zod_issues.ts`). `src/http/errors.ts` turns them into responses.
 *
 * @module
 */
export * from "./kinds.ts";
export * from "./zod_issues.ts";
