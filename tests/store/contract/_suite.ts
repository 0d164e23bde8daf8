/**
 * What every contract suite shares: a port made fresh for each test, closed after it.
 */

/** Makes a fresh, empty port and closes it. */
export type MakePort<P> = () => Promise<{ port: P; close(): Promise<void> }>;

/**
 * The `test(title, body)` of one suite on one implementation: each registers a `Deno.test`
 * named `{suite} contract ({name}): {title}` that runs `body` on a fresh port.
 */
export function contractTests<P>(suite: string, name: string, make: MakePort<P>) {
  return (title: string, body: (port: P) => Promise<void>) =>
    Deno.test(`${suite} contract (${name}): ${title}`, async () => {
      const { port, close } = await make();
      try {
        await body(port);
      } finally {
        await close();
      }
    });
}
