/**
 * The zod builders the shared schemas call, re-exported by name (see `mod.ts`).
 *
 * @module
 */
export {
  array,
  boolean,
  custom,
  discriminatedUnion,
  enum,
  literal,
  looseObject,
  number,
  object,
  record,
  regexes,
  strictObject,
  string,
  union,
  unknown,
  url,
} from "zod";
