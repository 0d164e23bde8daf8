/**
 * Programs outside Deno that tests run (paths overridable for machines that keep them
 * elsewhere). `tests/_support/preflight.ts` checks they are there before any test starts.
 */

/** Debian's Chromium, driven by playwright-core in the browser tests. */
export const CHROMIUM = Deno.env.get("SEALPOST_CHROMIUM") ?? "/usr/bin/chromium";

/** Whether `path` exists. */
function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Node.js, which runs the SDK's tests under Node's own test runner: Debian's when installed,
 * else the `node` first on PATH (the one that ran `npx`).
 */
export const NODE = Deno.env.get("SEALPOST_NODE") ??
  (exists("/usr/bin/node") ? "/usr/bin/node" : "node");

/** The `age` command line tool (Debian's `age`), for the encrypted-file interop tests. */
export const AGE = Deno.env.get("SEALPOST_AGE") ?? "age";
