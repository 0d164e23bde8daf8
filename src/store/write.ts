/**
 * The write layer: an atomic write recorded before it is committed, counting its own checks,
 * mutations and bytes against Deno KV's limits, so no writer declares them by hand.
 *
 * @module
 */

/** Deno KV's limits of one atomic operation and of one key or value. */
export const KV_LIMITS = {
  checks: 100,
  mutations: 1000,
  /** Total bytes of keys and values one operation may write. */
  bytes: 800 * 1024,
  keyBytes: 2048,
  valueBytes: 64 * 1024,
} as const;

/** A write is over one of Deno KV's limits (a value, a key, or the whole operation). */
export class WriteTooLargeError extends Error {
  override name = "WriteTooLargeError";
}

type Mutation =
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
    this.#bytes += keySize(key) + valueSize(value);
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
    this.#bytes += valueSize(value) + 16;
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
    if (this.#checks.length > 0) op.check(...this.#checks);
    for (const m of this.#mutations) {
      if (m.kind === "set") {
        op.set(m.key, m.value, m.expireIn === undefined ? undefined : { expireIn: m.expireIn });
      } else if (m.kind === "delete") op.delete(m.key);
      else if (m.kind === "sum") op.sum(m.key, m.value);
      else op.enqueue(m.value, m.delay === undefined ? undefined : { delay: m.delay });
    }
    return op;
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
    if (typeof part === "string") size += stringSize(part) + 2;
    else if (part instanceof Uint8Array) size += part.byteLength + 2;
    else size += 9;
  }
  return size;
}

// deno-lint-ignore no-control-regex
const WIDE = /[^\x00-\xff]/;

/** V8 serialises a string as Latin-1 when it can, else as UTF-16. */
function stringSize(value: string): number {
  return WIDE.test(value) ? value.length * 2 : value.length;
}

/** Approximate size of `value` in V8's serialisation, which Deno KV stores. */
export function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === "boolean") return 1;
  if (typeof value === "number" || typeof value === "bigint") return 9;
  if (typeof value === "string") return stringSize(value) + 5;
  if (ArrayBuffer.isView(value)) return value.byteLength + 8;
  if (value instanceof Date) return 9;
  if (Array.isArray(value)) {
    let size = 5;
    for (const item of value) size += valueSize(item);
    return size;
  }
  if (typeof value === "object") {
    let size = 5;
    for (const [k, v] of Object.entries(value)) size += stringSize(k) + 2 + valueSize(v);
    return size;
  }
  return 16;
}
