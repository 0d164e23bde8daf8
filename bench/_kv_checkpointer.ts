/**
 * Worker of bench/kv_flat.ts: a second SQLite connection to a Deno KV file that checkpoints its
 * WAL every `everyMs` (PASSIVE: it never waits for, nor blocks, the writer).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { DatabaseSync } from "node:sqlite";

self.onmessage = (event: MessageEvent<{ path: string; everyMs: number }>) => {
  const { path, everyMs } = event.data;
  const db = new DatabaseSync(path);
  const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
  setInterval(() => {
    try {
      checkpoint.get();
    } catch {
      // Busy: the next tick tries again.
    }
  }, everyMs);
};
