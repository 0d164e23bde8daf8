/**
 * Writes one port adds to another port's atomic commit, on the same backend: for example the
 * relay's ack of an envelope, saved in the commit of its record (role `all`). Ports pass them
 * as opaque values; each backend takes only its own.
 *
 * @module
 */
import type { KvWrite } from "./write.ts";

/** A piece of an atomic write, made by one port and committed by another. */
export interface WritePart {
  /** The backend that made it ("kv"); another backend refuses it. */
  readonly backend: string;
}

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
