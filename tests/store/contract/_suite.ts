/**
 * What every contract suite shares: a port made fresh for each test, closed after it.
 */

/**
 * Makes a fresh, empty port and closes it. `second`, when given, opens another handle on the
 * same store as another process would (PostgreSQL: another pool); races between processes run
 * on it. Without it (Deno KV: one process owns the file) the port itself stands in.
 */
export type MakePort<P> = () => Promise<{ port: P; close(): Promise<void>; second?(): P }>;

/**
 * The `test(title, body)` of one suite on one implementation: each registers a `Deno.test`
 * named `{suite} contract ({name}): {title}` that runs `body` on a fresh port (and its second
 * handle, see {@link MakePort}).
 */
export function contractTests<P>(suite: string, name: string, make: MakePort<P>) {
  return (title: string, body: (port: P, second: P) => Promise<void>) =>
    Deno.test(`${suite} contract (${name}): ${title}`, async () => {
      const { port, close, second } = await make();
      try {
        await body(port, second?.() ?? port);
      } finally {
        await close();
      }
    });
}
