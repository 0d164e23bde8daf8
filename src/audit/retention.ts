/**
 * Retention of the audit log (`[audit] retention_days`; 0 keeps it forever): entries older
 * than the retention are pruned from the oldest, each batch together with the signed
 * checkpoint of its last entry in one atomic write (the audit port's `prune`), so what is kept
 * still verifies, from the checkpoint on.
 *
 * @module
 */
import type { SigningKeyPair } from "../crypto/signing.ts";
import { AUDIT_PRUNE_MAX, type AuditPort } from "../store/ports/audit.ts";
import { signPosition } from "./chain.ts";

const DAY_MS = 24 * 3600 * 1000;

/**
 * Prunes the entries of `port` older than `retentionDays` days before `now` (none when it is
 * 0), signing each checkpoint with the manifest key `key`. Answers how many went.
 *
 * @example
 * ```ts
 * const key = await keys.manifestKey();
 * const pruned = await pruneAudit(ports.vault.audit, key, config.audit.retention_days);
 * ```
 */
export async function pruneAudit(
  port: AuditPort,
  key: SigningKeyPair,
  retentionDays: number,
  now: Date = new Date(),
): Promise<number> {
  if (!(retentionDays > 0)) return 0;
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
  let pruned = 0;
  for (;;) {
    const after = (await port.checkpoint())?.seq ?? 0;
    const page = await port.list({ after, limit: AUDIT_PRUNE_MAX });
    // Entries are appended in time order: the first young one ends the prune.
    const young = page.findIndex((entry) => entry.at >= cutoff);
    const last = (young === -1 ? page : page.slice(0, young)).at(-1);
    if (!last) return pruned;
    const position = { seq: last.seq, hash: last.hash };
    const signature = signPosition("checkpoint", position, key.secretKey);
    pruned += await port.prune(last.seq + 1, { ...position, at: now.toISOString(), signature });
    if (young !== -1 || page.length < AUDIT_PRUNE_MAX) return pruned;
  }
}
