/**
 * Reading many keys at once, within `kv.getMany`'s limit of ten keys a call.
 *
 * @module
 */

/** Keys per `kv.getMany` (Deno KV's limit). */
const GET_MANY_MAX = 10;

/**
 * The values stored at `keys`, in their order, absent ones left out.
 *
 * @example
 * ```ts
 * const people = await readMany<Person>(kv, ids.map(peopleKeys.person));
 * ```
 */
export async function readMany<T>(kv: Deno.Kv, keys: readonly Deno.KvKey[]): Promise<T[]> {
  const values: T[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY_MAX) {
    for (const entry of await kv.getMany<T[]>(keys.slice(i, i + GET_MANY_MAX))) {
      if (entry.value !== null) values.push(entry.value);
    }
  }
  return values;
}
