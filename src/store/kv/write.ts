/**
 * The write layer: an atomic write recorded before it is committed, counting its own checks,
 * mutations and bytes against Deno KV's limits, so no writer declares them by hand.
 *
 * @module
 */
import { ROW_LIMITS, storedSize, storedStringSize, WriteTooLargeError } from "../ports/limits.ts";

/** Deno KV's limits of one atomic operation, and of one key or value (the store's contract). */
export const KV_LIMITS = {
  checks: 100,
  mutations: 1000,
  /** Total bytes of keys and values one operation may write. */
  bytes: 800 * 1024,
  ...ROW_LIMITS,
} as const;

/** One recorded mutation. */
export type Mutation =
  | { kind: "set"; key: Deno.KvKey; value: unknown; expireIn?: number }
  | { kind: "delete"; key: Deno.KvKey }
  | { kind: "sum"; key: Deno.KvKey; value: bigint }
  | { kind: "enqueue"; key: null; value: unknown; delay?: number };

/**
 * An atomic write, recorded: checks and mutations in order, with their counts.
 *
 * @example
 * ```ts
 * const w = new KvWrite().check({ key: ["a"], versionstamp: null }).set(["a"], { n: 1 });
 * w.mutations; // 1
 * const ok = await w.commit(kv);
 * ```
 */
export class KvWrite {
  #checks: Deno.AtomicCheck[] = [];
  #mutations: Mutation[] = [];
  #bytes = 0;

  /** Adds conditions: each key must still have its versionstamp (null: absent). */
  check(...checks: Deno.AtomicCheck[]): this {
    for (const check of checks) {
      this.#checks.push({ key: check.key, versionstamp: check.versionstamp });
      this.#bytes += keySize(check.key);
    }
    return this;
  }

  /** Sets `key` to `value` (expiring after `expireIn` ms when given). */
  set(key: Deno.KvKey, value: unknown, options?: { expireIn?: number }): this {
    this.#mutations.push({ kind: "set", key, value, expireIn: options?.expireIn });
    this.#bytes += keySize(key) + storedSize(value);
    return this;
  }

  /** Deletes `key` (nothing happens when it is absent). */
  delete(key: Deno.KvKey): this {
    this.#mutations.push({ kind: "delete", key });
    this.#bytes += keySize(key);
    return this;
  }

  /** Adds `value` to the 64-bit counter at `key`. */
  sum(key: Deno.KvKey, value: bigint): this {
    this.#mutations.push({ kind: "sum", key, value });
    this.#bytes += keySize(key) + 8;
    return this;
  }

  /** Queues `value` as a Deno KV queue message, delivered after `delay` ms when given. */
  enqueue(value: unknown, options?: { delay?: number }): this {
    this.#mutations.push({ kind: "enqueue", key: null, value, delay: options?.delay });
    this.#bytes += storedSize(value) + 16;
    return this;
  }

  /** Number of checks. */
  get checks(): number {
    return this.#checks.length;
  }

  /** Number of mutations. */
  get mutations(): number {
    return this.#mutations.length;
  }

  /** Estimated bytes of keys and values (as Deno KV serialises them, within a few percent). */
  get bytes(): number {
    return this.#bytes;
  }

  /** The keys this write checks, with the versionstamps it expects. */
  get checked(): readonly Deno.AtomicCheck[] {
    return this.#checks;
  }

  /** Adds the recorded checks and mutations to `op`. */
  applyTo(op: Deno.AtomicOperation): Deno.AtomicOperation {
    return applyAll([this], op);
  }

  /** The recorded mutations (for {@link applyAll}). */
  get recorded(): readonly Mutation[] {
    return this.#mutations;
  }

  /**
   * Commits this write alone: true when committed, false when a check failed. Over one of
   * Deno KV's limits it throws {@link WriteTooLargeError}, never the store's own TypeError.
   */
  async commit(kv: Deno.Kv): Promise<boolean> {
    return (await commitOp(this.applyTo(kv.atomic()))).ok;
  }
}

/**
 * Adds several writes to one operation, in order, with their `sum`s on one key folded into a
 * single `sum` (sums commute; a key that is also set or deleted keeps its sums as they are).
 * Counters bumped by every write of a batch (a form's record count) then cost one mutation.
 *
 * @example
 * ```ts
 * applyAll([first, second], kv.atomic());
 * ```
 */
export function applyAll(
  writes: readonly KvWrite[],
  op: Deno.AtomicOperation,
): Deno.AtomicOperation {
  const touched = new Set<string>();
  const sums = new Map<string, { key: Deno.KvKey; value: bigint }>();
  // Keys are compared only when there are sums to fold (an intake batch has none).
  const folding = writes.some((w) => w.recorded.some((m) => m.kind === "sum"));
  for (const w of folding ? writes : []) {
    for (const m of w.recorded) {
      if (m.kind === "set" || m.kind === "delete") touched.add(keyId(m.key));
      else if (m.kind === "sum") {
        const id = keyId(m.key);
        const sum = sums.get(id);
        if (sum) sum.value = (sum.value + m.value) & U64;
        else sums.set(id, { key: m.key, value: m.value });
      }
    }
  }
  for (const w of writes) {
    if (w.checked.length > 0) op.check(...w.checked);
    for (const m of w.recorded) {
      if (m.kind === "set") {
        op.set(m.key, m.value, m.expireIn === undefined ? undefined : { expireIn: m.expireIn });
      } else if (m.kind === "delete") op.delete(m.key);
      else if (m.kind === "sum") {
        if (touched.has(keyId(m.key))) op.sum(m.key, m.value);
      } else op.enqueue(m.value, m.delay === undefined ? undefined : { delay: m.delay });
    }
  }
  for (const [id, { key, value }] of sums) if (!touched.has(id)) op.sum(key, value);
  return op;
}

/** Deno KV's sums wrap modulo 2^64. */
const U64 = 0xffff_ffff_ffff_ffffn;

/** A string that identifies a key (types kept apart: 1 and "1" differ). */
function keyId(key: Deno.KvKey): string {
  return JSON.stringify(
    key.map((part) =>
      part instanceof Uint8Array
        ? ["u8", part.toHex()]
        : typeof part === "bigint"
        ? ["n", String(part)]
        : [typeof part, part]
    ),
  );
}

/**
 * Commits `op`, turning Deno KV's refusal of a too large key, value or operation into
 * {@link WriteTooLargeError}.
 */
export async function commitOp(
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  try {
    return await op.commit();
  } catch (err) {
    if (err instanceof TypeError && /too large|exceed/i.test(err.message)) {
      throw new WriteTooLargeError(err.message);
    }
    throw err;
  }
}

/** Bytes of a key part as Deno KV encodes it (with its type tag and terminator). */
function keySize(key: Deno.KvKey): number {
  let size = 0;
  for (const part of key) {
    if (typeof part === "string") size += storedStringSize(part) + 2;
    else if (part instanceof Uint8Array) size += part.byteLength + 2;
    else size += 9;
  }
  return size;
}
