/**
 * Runs sdk_test.ts under Node 20: bundled for Node by `deno bundle`, then `node --test`.
 */
import assert from "node:assert/strict";
import { NODE } from "../_support/tools.ts";

Deno.test("the SDK test file passes under Node's test runner", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-node-" });
  try {
    const bundle = `${dir}/sdk_test.mjs`;
    const built = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform=node",
        "-o",
        bundle,
        new URL("./sdk_test.ts", import.meta.url).pathname,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));

    const run = await new Deno.Command(NODE, {
      args: ["--test", "--test-reporter=tap", bundle],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    const out = new TextDecoder().decode(run.stdout);
    assert.equal(run.code, 0, out + new TextDecoder().decode(run.stderr));
    const pass = Number(/^# pass (\d+)$/m.exec(out)?.[1]);
    assert.ok(pass >= 14, `expected at least 14 passing tests under Node, got ${pass}:\n${out}`);
    assert.match(out, /^# fail 0$/m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
