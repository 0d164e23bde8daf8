/**
 * PostgreSQL write parts: a statement one port runs inside another port's transaction (the
 * relay's ack of an envelope, committed with the vault's record in role `all`). See
 * src/store/kv/write_part.ts for the Deno KV side.
 *
 * @module
 */
import type { WritePart } from "../ports/write_part.ts";
import type { Tx } from "./db.ts";

interface PgWritePart extends WritePart {
  readonly backend: "postgres";
  run(tx: Tx): Promise<void>;
}

/**
 * A PostgreSQL write part: `run` executes its statements in the committing transaction.
 *
 * @example
 * ```ts
 * const ack = pgPart((tx) => tx`delete from relay_queue where fingerprint = ${fp} and seq = ${seq}`.then(() => {}));
 * ```
 */
export function pgPart(run: (tx: Tx) => Promise<void>): WritePart {
  const part: PgWritePart = { backend: "postgres", run };
  return part;
}

/** Runs `parts` (made by {@link pgPart}) in `tx`, in order; a part of another backend is a bug. */
export async function runPgParts(tx: Tx, parts: readonly WritePart[]): Promise<void> {
  for (const part of parts) {
    if (part.backend !== "postgres" || !("run" in part)) {
      throw new TypeError(
        `A write part of backend "${part.backend}" cannot join a PostgreSQL write`,
      );
    }
    await (part as PgWritePart).run(tx);
  }
}
