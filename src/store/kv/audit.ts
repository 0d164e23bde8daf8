/**
 * The audit port on Deno KV: entries under `auditKeys.entry(seq)`, the head beside them. An
 * append checks the head's versionstamp, so of two at once one commits and the other is built
 * again on the new head; a prune deletes its entries and sets the checkpoint in one atomic write.
 *
 * @module
 */
import {
  AUDIT_LIST_MAX,
  type AuditCheckpoint,
  type AuditEntry,
  type AuditHead,
  type AuditPort,
  type AuditQuery,
  checkNext,
  checkPrune,
  matchesAuditQuery,
} from "../ports/audit.ts";
import { auditKeys } from "./keys.ts";
import { KvWrite } from "./write.ts";

/**
 * The Deno KV audit log.
 *
 * @example
 * ```ts
 * const audit = new KvAudit(kv);
 * await audit.head(); // null on a new store
 * ```
 */
export class KvAudit implements AuditPort {
  constructor(private kv: Deno.Kv) {}

  async append(build: (prev: AuditHead | null) => AuditEntry): Promise<AuditEntry> {
    for (;;) {
      const head = await this.kv.get<AuditHead>(auditKeys.head());
      const entry = build(head.value);
      checkNext(head.value, entry);
      const committed = await new KvWrite()
        .check(head)
        .set(auditKeys.entry(entry.seq), entry)
        .set(auditKeys.head(), { seq: entry.seq, hash: entry.hash })
        .commit(this.kv);
      if (committed) return entry;
    }
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    const limit = Math.min(query.limit, AUDIT_LIST_MAX);
    const out: AuditEntry[] = [];
    if (limit <= 0) return out;
    const iter = this.kv.list<AuditEntry>({
      start: auditKeys.entry((query.after ?? 0) + 1),
      end: auditKeys.entry(query.before ?? Number.MAX_SAFE_INTEGER),
    }, { batchSize: Math.min(limit, 500), reverse: query.newestFirst ?? false });
    for await (const { value } of iter) {
      if (!matchesAuditQuery(value, query)) continue;
      out.push(value);
      if (out.length >= limit) break;
    }
    return out;
  }

  async head(): Promise<AuditHead | null> {
    return (await this.kv.get<AuditHead>(auditKeys.head())).value;
  }

  async checkpoint(): Promise<AuditCheckpoint | null> {
    return (await this.kv.get<AuditCheckpoint>(auditKeys.checkpoint())).value;
  }

  async prune(beforeSeq: number, checkpoint: AuditCheckpoint): Promise<number> {
    for (;;) {
      const [current, last] = await this.kv.getMany<[AuditCheckpoint, AuditEntry]>([
        auditKeys.checkpoint(),
        auditKeys.entry(beforeSeq - 1),
      ]);
      const from = checkPrune(beforeSeq, checkpoint, current.value, last.value);
      const write = new KvWrite().check(current, last).set(auditKeys.checkpoint(), checkpoint);
      for (let seq = from; seq < beforeSeq; seq++) write.delete(auditKeys.entry(seq));
      if (await write.commit(this.kv)) return beforeSeq - from;
    }
  }
}
