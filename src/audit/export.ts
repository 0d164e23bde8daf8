/**
 * The audit log as JSON lines, what `sealpost audit export` writes and `audit verify` reads:
 *
 * ```text
 * {"kind":"checkpoint","seq":…,"hash":…,"at":…,"signature":…}          (after a prune only)
 * {"kind":"entry","seq":1,"at":…,"prevHash":…,"event":{…},"hash":…}  (every kept entry)
 * {"kind":"head","seq":…,"hash":…,"alg":"ed25519","publicKey":…,"signature":…}  (signed)
 * ```
 *
 * The head is read first and signed with the manifest key; the entries after it (appended while
 * the export ran) are left for the next export.
 *
 * @module
 */
import type { SigningKeyPair } from "../crypto/signing.ts";
import type { AuditCheckpoint, AuditEntry, AuditPort } from "../store/ports/audit.ts";
import { AUDIT_LIST_MAX } from "../store/ports/audit.ts";
import { GENESIS } from "./chain.ts";
import { type SignedAuditHead, signHead } from "./log.ts";

/** One line of an export, parsed. */
export type AuditExportLine =
  | ({ kind: "checkpoint" } & AuditCheckpoint)
  | ({ kind: "entry" } & AuditEntry)
  | ({ kind: "head" } & SignedAuditHead);

/** What {@link exportAudit} wrote. */
export interface AuditExportSummary {
  entries: number;
  head: SignedAuditHead;
  checkpoint: AuditCheckpoint | null;
}

/**
 * Writes the log of `port` as JSON lines to `write` (each line with its "\n"), the head signed
 * with the manifest key `key`.
 *
 * @example
 * ```ts
 * const lines: string[] = [];
 * await exportAudit(ports.vault.audit, await keys.manifestKey(), (l) => void lines.push(l));
 * ```
 */
export async function exportAudit(
  port: AuditPort,
  key: SigningKeyPair,
  write: (line: string) => Promise<void> | void,
): Promise<AuditExportSummary> {
  const head = signHead(await port.head() ?? GENESIS, key);
  let { checkpoint, page } = await firstPage(port, head.seq);
  if (checkpoint) await write(line({ kind: "checkpoint", ...checkpoint }));
  let entries = 0;
  while (page.length > 0) {
    for (const entry of page) await write(line({ kind: "entry", ...entry }));
    entries += page.length;
    const after = page.at(-1)!.seq;
    page = after >= head.seq ? [] : await pageOf(port, after, head.seq);
  }
  await write(line({ kind: "head", ...head }));
  return { entries, head, checkpoint };
}

/** The checkpoint and the entries right after it (read again if a prune moved it meanwhile). */
async function firstPage(port: AuditPort, until: number) {
  for (;;) {
    const checkpoint = await port.checkpoint();
    const after = checkpoint?.seq ?? 0;
    const page = after >= until ? [] : await pageOf(port, after, until);
    if (page.length === 0 || page[0].seq === after + 1) return { checkpoint, page };
  }
}

async function pageOf(port: AuditPort, after: number, until: number): Promise<AuditEntry[]> {
  const page = await port.list({ after, limit: AUDIT_LIST_MAX });
  return page.filter((e) => e.seq <= until);
}

function line(value: AuditExportLine): string {
  return JSON.stringify(value) + "\n";
}
