/**
 * The one place routes take ids and cursors from: the schemas of `src/forms/ids.ts` (shared
 * with the SDK), and {@link readPage}, which turns a list cursor Deno KV refuses into a 400.
 *
 * @module
 */
import { Invalid } from "../errors/index.ts";

export * from "../forms/ids.ts";

/**
 * Reads every entry of a KV list whose `cursor` came from a client: a cursor Deno KV does not
 * accept (well-formed, but not one of this list's) is a 400 `invalid_request` naming
 * `field`, never an exception.
 *
 * @example
 * ```ts
 * const entries = await readPage(kv.list({ prefix }, { limit, cursor }), "cursor");
 * ```
 */
export async function readPage<T>(
  list: Deno.KvListIterator<T>,
  field = "cursor",
): Promise<Deno.KvEntry<T>[]> {
  const found: Deno.KvEntry<T>[] = [];
  try {
    for await (const entry of list) found.push(entry);
  } catch (err) {
    if (!(err instanceof TypeError) || !/cursor/i.test(err.message)) throw err;
    throw new Invalid(
      "invalid_request",
      `Invalid ${field}: not a cursor of this list`,
      field,
    );
  }
  return found;
}
