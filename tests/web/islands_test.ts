/**
 * The committed island bundles (src/web/assets/*_js.ts) are what `deno task islands` builds
 * from the current sources: a stale bundle fails here.
 */
import assert from "node:assert/strict";

Deno.test("the committed island bundles are up to date", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../src/web/build_islands.ts", import.meta.url).pathname,
      "--check",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, text);
  assert.match(text, /up to date/);
});
