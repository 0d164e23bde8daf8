/**
 * The records table's query: search, a date range, a sort and a page, over a form's record
 * heads; and the submissions-per-day counts of the chart. Pure functions over the records a
 * scan of the records port yields.
 *
 * @module
 */
import type { RecordHead, ScannedRecord } from "../store/ports/records.ts";

/** The sorts the table offers. */
export const SORTS = {
  newest: "Newest first",
  oldest: "Oldest first",
  updated: "Recently updated",
} as const;

/** One of {@linkcode SORTS}. */
export type Sort = keyof typeof SORTS;

/** What the table shows. */
export interface RecordQuery {
  /** Case-insensitive text every shown record's values contain. */
  q: string;
  /** `YYYY-MM-DD`: received on or after (UTC). */
  from: string;
  /** `YYYY-MM-DD`: received on or before (UTC). */
  to: string;
  sort: Sort;
  /** 1-based page number (search and "recently updated": the table reads every record). */
  page: number;
  /** Where the page starts in the time index (the other views): the previous page's cursor. */
  cursor: string;
}

/** Rows per page. */
export const PAGE_SIZE = 50;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Reads a query from URL parameters; anything malformed falls back to its default.
 *
 * @example
 * ```ts
 * parseQuery({ q: "ada", sort: "oldest" });
 * // { q: "ada", from: "", to: "", sort: "oldest", page: 1, cursor: "" }
 * ```
 */
export function parseQuery(params: Record<string, string | undefined>): RecordQuery {
  const sort = params.sort && Object.hasOwn(SORTS, params.sort) ? params.sort as Sort : "newest";
  const page = Number(params.page);
  return {
    q: (params.q ?? "").trim().slice(0, 200),
    from: DAY.test(params.from ?? "") ? params.from! : "",
    to: DAY.test(params.to ?? "") ? params.to! : "",
    sort,
    page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
    cursor: /^[A-Za-z0-9_-]{1,2000}$/.test(params.cursor ?? "") ? params.cursor! : "",
  };
}

/** Whether a query is answered from the time index (no search, sorted by receipt). */
export function usesIndex(query: RecordQuery): boolean {
  return !query.q && query.sort !== "updated";
}

/** What the sorted matches of a scan keep of each record (its values are read per page). */
export type RecordKey = Pick<RecordHead, "recordId" | "createdAt" | "savedAt">;

/**
 * Filters a stream of live records (`RecordsPort.scan`) and sorts the matches; only their ids
 * and times are kept, so memory follows the matches' count, not the records' size. Values are
 * read only to search.
 */
export async function selectRecords(
  records: AsyncIterable<ScannedRecord> | Iterable<ScannedRecord>,
  query: RecordQuery,
): Promise<RecordKey[]> {
  const needle = query.q.toLowerCase();
  const out: RecordKey[] = [];
  for await (const { head, values: valuesOf } of records) {
    const day = head.createdAt.slice(0, 10);
    if (query.from && day < query.from) continue;
    if (query.to && day > query.to) continue;
    if (needle) {
      const values = await valuesOf();
      const text = `${head.recordId} ${JSON.stringify(values)}`.toLowerCase();
      if (!text.includes(needle)) continue;
    }
    out.push({ recordId: head.recordId, createdAt: head.createdAt, savedAt: head.savedAt });
  }
  const key = query.sort === "updated" ? "savedAt" : "createdAt";
  const sign = query.sort === "oldest" ? 1 : -1;
  out.sort((a, b) =>
    sign * (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0) ||
    (a.recordId < b.recordId ? -1 : 1)
  );
  return out;
}

/**
 * Submissions per UTC day over the `days` days up to `today`, oldest first, from per-day
 * counts (days without records may be absent).
 *
 * @example
 * ```ts
 * perDay(new Map([["2025-06-07", 3]]), 2, "2025-06-07");
 * // [{ day: "2025-06-06", count: 0 }, { day: "2025-06-07", count: 3 }]
 * ```
 */
export function perDay(
  counts: Map<string, number>,
  days: number,
  today: string,
): { day: string; count: number }[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  const out: { day: string; count: number }[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const day = new Date(end - i * 86_400_000).toISOString().slice(0, 10);
    out.push({ day, count: counts.get(day) ?? 0 });
  }
  return out;
}
