/**
 * Calendar dates (`YYYY-MM-DD`) and ISO-8601 date-times with offset, as field definitions'
 * bounds and field values use them.
 *
 * @module
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch of a `YYYY-MM-DD`, or NaN if it is not a calendar date. */
function dateMs(value: string): number {
  const m = DATE.exec(value);
  if (!m) return NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const t = new Date(ms);
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d ? ms : NaN;
}

/**
 * Milliseconds since the epoch of an ISO-8601 date-time with offset, or NaN.
 *
 * @example
 * ```ts
 * dateTimeMs("1970-01-01T01:00+01:00"); // 0
 * ```
 */
export function dateTimeMs(value: string): number {
  const m = DATE_TIME.exec(value);
  if (!m) return NaN;
  const day = dateMs(`${m[1]}-${m[2]}-${m[3]}`);
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  const [oh, om] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  if (isNaN(day) || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59) return NaN;
  const frac = m[7] ? Number(m[7]) * 1000 : 0;
  const offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  return day + ((h * 60 + mi) * 60 + s) * 1000 + frac - offset;
}

/** Whether `v` is a calendar date `YYYY-MM-DD`. */
export const isDate = (v: string): boolean => !isNaN(dateMs(v));
/** Whether `v` is an ISO-8601 date-time with offset. */
export const isDateTime = (v: string): boolean => !isNaN(dateTimeMs(v));
