import assert from "node:assert/strict";
import { helpText, programCommand } from "../../src/cli/program.ts";
import { sealpost } from "../_support/cli.ts";

const NPX_DENO = "/home/a/.npm/_npx/1/node_modules/deno/deno";

Deno.test("programCommand: the sources, relative to the working folder", () => {
  assert.equal(
    programCommand("file:///srv/sealpost/main.ts", "/srv/sealpost", "/usr/local/bin/deno", ""),
    "deno run -A main.ts",
  );
  assert.equal(
    programCommand("file:///srv/sealpost/main.ts", "/srv", "/usr/local/bin/deno", undefined),
    "deno run -A sealpost/main.ts",
  );
});

Deno.test("programCommand: a Deno that npx fetched is run again through npx", () => {
  assert.equal(
    programCommand("file:///srv/sealpost/main.ts", "/srv", NPX_DENO, undefined),
    `npx -y deno@${Deno.version.deno} run -A sealpost/main.ts`,
  );
  assert.equal(
    programCommand("file:///opt/sealpost.js", "/opt", NPX_DENO, undefined),
    `npx -y deno@${Deno.version.deno} run -A --unstable-kv sealpost.js`,
  );
});

Deno.test("programCommand: started by the deno task, the task runs it again", () => {
  assert.equal(
    programCommand("file:///srv/sealpost/main.ts", "/srv", NPX_DENO, "task sealpost"),
    `npx -y deno@${Deno.version.deno} task sealpost`,
  );
  assert.equal(
    programCommand("file:///srv/sealpost/main.ts", "/srv", "/usr/local/bin/deno", "task sealpost"),
    "deno task sealpost",
  );
});

Deno.test("programCommand: the bundle needs --unstable-kv", () => {
  assert.equal(
    programCommand("file:///opt/sealpost.js", "/opt", "/usr/local/bin/deno", undefined),
    "deno run -A --unstable-kv sealpost.js",
  );
});

Deno.test("programCommand: a file outside the working folder is named by its absolute path", () => {
  const bundle = "file:///opt/sealpost/sealpost.js";
  assert.equal(
    programCommand(bundle, "/", "/usr/local/bin/deno", undefined),
    "deno run -A --unstable-kv /opt/sealpost/sealpost.js",
    "a service started in /",
  );
  assert.equal(
    programCommand(bundle, "/var/lib/sealpost", "/usr/local/bin/deno", undefined),
    "deno run -A --unstable-kv /opt/sealpost/sealpost.js",
  );
});

Deno.test("programCommand: a compiled binary is run as itself", () => {
  assert.equal(
    programCommand(
      "file:///tmp/deno-compile-sealpost/main.ts",
      "/srv",
      "/usr/local/bin/sealpost",
      "task sealpost",
    ),
    "/usr/local/bin/sealpost",
  );
});

Deno.test("programCommand: this test process runs from the sources", () => {
  assert.match(programCommand(), /^(npx -y deno@\S+|deno) run -A .*\.ts$/);
});

Deno.test("helpText: the help, then how to run sealpost here", () => {
  assert.equal(
    helpText("Usage: sealpost backup --out FILE\n", "npx -y deno@2.9.6 task sealpost"),
    'Usage: sealpost backup --out FILE\n\nRun "sealpost" here as: npx -y deno@2.9.6 task sealpost',
  );
});

Deno.test("--help of every command group names how this program was started", async () => {
  const started = "task sealpost";
  for (
    const args of [
      ["--help"],
      ["serve", "--help"],
      ["submit", "--help"],
      ["form", "--help"],
      ["webhook", "--help"],
      ["backup", "--help"],
      ["key", "--help"],
      ["migrate-store", "--help"],
      ["blob", "--help"],
    ]
  ) {
    const run = await sealpost(args, { SEALPOST_INVOKED_AS: started });
    assert.equal(run.code, 0, args.join(" "));
    assert.match(run.stdout, /sealpost/);
    assert.match(
      run.stdout,
      /\n\nRun "sealpost" here as: (npx -y deno@\S+ |deno )task sealpost\n$/,
      args.join(" "),
    );
    // And without the task, the command line that ran it.
    const plain = await sealpost(args);
    assert.match(
      plain.stdout,
      /Run "sealpost" here as: (npx -y deno@\S+ |deno )run -A \S*main\.ts/,
    );
  }
});
