/**
 * The one place routes take ids and cursors from: the schemas of `src/forms/ids.ts` (shared
 * with the SDK).
 *
 * @module
 */
export * from "../forms/ids.ts";
