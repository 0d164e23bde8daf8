/**
 * Deno KV write parts (src/store/ports/write_part.ts): a part records its checks and mutations
 * in the write of the port that commits it.
 *
 * @module
 */
import type { WritePart } from "../ports/write_part.ts";
import type { KvWrite } from "./write.ts";

interface KvWritePart extends WritePart {
  readonly backend: "kv";
  add(w: KvWrite): void;
}

/**
 * A Deno KV write part: `add` records its checks and mutations in the committing write.
 *
 * @example
 * ```ts
 * const ack = kvPart((w) => w.delete(["queue", fp, seq]));
 * ```
 */
export function kvPart(add: (w: KvWrite) => void): WritePart {
  const part: KvWritePart = { backend: "kv", add };
  return part;
}

/** Adds `part` (made by {@link kvPart}) to `w`; a part of another backend is a bug. */
export function addKvPart(w: KvWrite, part: WritePart): void {
  if (part.backend !== "kv" || !("add" in part)) {
    throw new TypeError(`A write part of backend "${part.backend}" cannot join a Deno KV write`);
  }
  (part as KvWritePart).add(w);
}
