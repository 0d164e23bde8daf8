/**
 * A fresh audit log for the tests of src/audit: the Deno KV port in a temp dir, a manifest key
 * of its own, and helpers to record events and export the log as text.
 */
import { AuditLog } from "../../src/audit/log.ts";
import { exportAudit } from "../../src/audit/export.ts";
import { generateSigningKeyPair, type SigningKeyPair } from "../../src/crypto/signing.ts";
import type { AuditEvent } from "../../src/store/ports/audit.ts";
import { KvAudit } from "../../src/store/kv/audit.ts";
import { freshKv } from "../store/contract/_kv.ts";

/** An open log and what it was made with; `close` removes its store. */
export interface TestLog {
  log: AuditLog;
  port: KvAudit;
  /** The store under the port, for tests that tamper with it. */
  kv: Deno.Kv;
  key: SigningKeyPair;
  /** Records `count` events, the nth at `start` plus n days. */
  fill(count: number, start?: Date): Promise<void>;
  /** The export of the log as text. */
  exported(): Promise<string>;
  close(): Promise<void>;
}

/** The nth test event: a record viewed by person p{n mod 3}. */
export function nthEvent(n: number): AuditEvent {
  return {
    action: "record_viewed",
    personId: `p${n % 3}`,
    databaseId: "db1",
    target: { kind: "record", id: `r${n}` },
  };
}

/** Opens a fresh log; the clock of its entries is settable through `fill`. */
export async function testLog(): Promise<TestLog> {
  const { kv, close } = await freshKv();
  const port = new KvAudit(kv);
  const key = generateSigningKeyPair();
  let now = new Date();
  const log = new AuditLog(port, { manifestKey: () => Promise.resolve(key), now: () => now });
  return {
    log,
    port,
    kv,
    key,
    fill: async (count, start = new Date()) => {
      for (let n = 1; n <= count; n++) {
        now = new Date(start.getTime() + n * 86_400_000);
        await log.record(nthEvent(n));
      }
    },
    exported: async () => {
      const lines: string[] = [];
      await exportAudit(port, key, (line) => void lines.push(line));
      return lines.join("");
    },
    close,
  };
}

/** The export's lines, each parsed, and back to text. */
export function editLines(
  text: string,
  edit: (lines: Record<string, unknown>[]) => Record<string, unknown>[],
): string {
  const lines = text.trim().split("\n").map((l) => JSON.parse(l));
  return edit(lines).map((l) => JSON.stringify(l) + "\n").join("");
}
