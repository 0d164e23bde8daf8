/**
 * Programs outside Deno that tests run (paths overridable for machines that keep them
 * elsewhere). `tests/_support/preflight.ts` checks they are there before any test starts.
 */

/** Debian's Chromium, driven by playwright-core in the browser tests. */
export const CHROMIUM = Deno.env.get("SEALPOST_CHROMIUM") ?? "/usr/bin/chromium";

/** Node.js, which runs the SDK's tests under Node's own test runner. */
export const NODE = Deno.env.get("SEALPOST_NODE") ?? "/usr/bin/node";
