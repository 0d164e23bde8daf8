import assert from "node:assert/strict";
import { programCommand } from "../../src/cli/program.ts";

Deno.test("programCommand: the sources, relative to the working folder", () => {
  assert.equal(
    programCommand("file:///srv/sealpost/main.ts", "/srv/sealpost", "/usr/local/bin/deno"),
    "deno run -A main.ts",
  );
  assert.equal(
    programCommand(
      "file:///srv/sealpost/main.ts",
      "/srv",
      "/home/a/.npm/_npx/1/node_modules/deno/deno",
    ),
    "deno run -A sealpost/main.ts",
  );
});

Deno.test("programCommand: the bundle needs --unstable-kv", () => {
  assert.equal(
    programCommand("file:///opt/sealpost.js", "/opt", "/usr/local/bin/deno"),
    "deno run -A --unstable-kv sealpost.js",
  );
});

Deno.test("programCommand: a compiled binary is run as itself", () => {
  assert.equal(
    programCommand("file:///tmp/deno-compile-sealpost/main.ts", "/srv", "/usr/local/bin/sealpost"),
    "/usr/local/bin/sealpost",
  );
});

Deno.test("programCommand: this test process runs from the sources", () => {
  assert.match(programCommand(), /^deno run -A .*\.ts$/);
});
