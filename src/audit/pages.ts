/**
 * The audit log read a page at a time, newest first, as the API (`GET /vault/audit`) and the
 * console's Audit page show it: a page of at most `limit` entries matching the filters, and
 * the cursor of the next (older) page, the `seq` to read `before`.
 *
 * @module
 */
import type { AuditAction, AuditEntry, AuditPort } from "../store/ports/audit.ts";

/** Which page: the filters, the cursor and the size. */
export interface AuditPageQuery {
  /** Entries older than this `seq` (absent: from the newest). */
  before?: number;
  /** At most this many (1 to {@link AUDIT_PAGE_MAX}). */
  limit: number;
  personId?: string;
  databaseId?: string;
  action?: AuditAction;
}

/** A page of entries, newest first, and where the next begins (null: this is the last). */
export interface AuditPage {
  items: AuditEntry[];
  /** The `before` of the next page: the `seq` of this page's last entry. */
  next: number | null;
}

/** The largest page. */
export const AUDIT_PAGE_MAX = 500;

/**
 * A page of the log of `port`.
 *
 * @example
 * ```ts
 * const first = await auditPage(ports.vault.audit, { limit: 50, action: "record_viewed" });
 * const second = await auditPage(ports.vault.audit, { limit: 50, before: first.next! });
 * ```
 */
export async function auditPage(port: AuditPort, query: AuditPageQuery): Promise<AuditPage> {
  const limit = Math.min(Math.max(1, query.limit), AUDIT_PAGE_MAX);
  const entries = await port.list({
    newestFirst: true,
    limit: limit + 1,
    ...(query.before !== undefined ? { before: query.before } : {}),
    ...(query.personId !== undefined ? { personId: query.personId } : {}),
    ...(query.databaseId !== undefined ? { databaseId: query.databaseId } : {}),
    ...(query.action !== undefined ? { action: query.action } : {}),
  });
  const items = entries.slice(0, limit);
  return { items, next: entries.length > limit ? items.at(-1)!.seq : null };
}
