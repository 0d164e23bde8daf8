/**
 * Counting the keys under a prefix of the Deno KV store without reading its values.
 *
 * Deno KV has no keys-only listing, so counting a deep queue with `kv.list` would read and
 * decode every row on each scrape. The store is
 * a SQLite file (table `kv`, keys in the tuple encoding Deno KV shares with FoundationDB);
 * this module counts key ranges there over a read-only connection, which reads the key B-tree
 * and none of the overflow pages holding large values. The count stops at a cap, so one
 * scrape does bounded work whatever the backlog.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";

/** A key part {@link KeyCounter} counts under: a string or bytes. */
export type PrefixPart = string | Uint8Array;

/**
 * The tuple encoding of a key made of strings and bytes (a prefix of the key space).
 *
 * @example
 * ```ts
 * encodePrefix(["queue"]); // Uint8Array [0x02, ...utf8("queue"), 0x00]
 * ```
 */
export function encodePrefix(parts: readonly PrefixPart[]): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    const bytes = typeof part === "string" ? new TextEncoder().encode(part) : part;
    out.push(typeof part === "string" ? 0x02 : 0x01);
    for (const byte of bytes) {
      out.push(byte);
      if (byte === 0x00) out.push(0xff);
    }
    out.push(0x00);
  }
  return new Uint8Array(out);
}

/**
 * Counts keys under prefixes (strings and bytes) of the store file at `path`, at most `cap` each.
 *
 * @example
 * ```ts
 * const counter = new KeyCounter("./data/sealpost.kv");
 * counter.count(["queue", fingerprint], 100_000); // envelopes waiting, capped
 * counter.close();
 * ```
 */
export class KeyCounter {
  #db: DatabaseSync | null = null;
  #statement: StatementSync | null = null;

  constructor(private readonly path: string) {}

  /** Keys strictly under `prefix` (as `kv.list({ prefix })` sees them), at most `cap`. */
  count(prefix: readonly PrefixPart[], cap: number): number {
    if (!this.#statement) {
      this.#db = new DatabaseSync(this.path, { readOnly: true });
      this.#statement = this.#db.prepare(
        "SELECT count(*) AS n FROM (SELECT 1 FROM kv WHERE k > ? AND k < ? LIMIT ?)",
      );
    }
    const start = encodePrefix(prefix);
    const end = new Uint8Array([...start, 0xff]);
    const row = this.#statement.get(start, end, cap) as { n: number };
    return Number(row.n);
  }

  /** Closes the connection (a later count opens it again). */
  close(): void {
    this.#db?.close();
    this.#db = null;
    this.#statement = null;
  }
}
