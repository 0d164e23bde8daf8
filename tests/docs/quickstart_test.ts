import assert from "node:assert/strict";
import { spawnServer } from "../_support/process.ts";

Deno.test("docs/examples/quickstart.ts runs end to end against a fresh instance", async () => {
  const dir = await Deno.makeTempDir();
  const server = await spawnServer(dir);
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../docs/examples/quickstart.ts", import.meta.url).pathname,
        dir,
      ],
      env: { SEALPOST_URL: server.url },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.match(stdout, /opened [0-9a-f]{32}: { message: "Hello, sealed world" }/);
    assert.match(stdout, /acknowledged 1/);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
