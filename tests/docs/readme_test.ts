/**
 * The README's first code block is the two-command promise that `.ci/run` runs verbatim in a
 * fresh clone: start first, tests second, each a task of this repository run by the Deno that
 * `.ci/run` installs.
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);

/** The commands of the first fenced block of `markdown`, comments and blank lines dropped. */
function firstBlockCommands(markdown: string): string[] {
  const block = /^```[^\n]*\n([\s\S]*?)^```/m.exec(markdown);
  assert.ok(block, "README.md has a code block");
  return block[1].split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter(Boolean);
}

Deno.test("README: the first code block holds the start command, then the test command", async () => {
  const commands = firstBlockCommands(await Deno.readTextFile(new URL("README.md", root)));
  const ci = await Deno.readTextFile(new URL(".ci/run", root));
  const pinned = /^DENO_VERSION=(\S+)$/m.exec(ci)?.[1];
  assert.ok(pinned, ".ci/run pins a Deno version");
  assert.deepEqual(commands, [
    `npx -y deno@${pinned} task start`,
    `npx -y deno@${pinned} task test`,
  ]);
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", root))).tasks;
  assert.match(tasks.start, /main\.ts serve$/);
  assert.match(tasks.test, /^deno run --allow-all tests\/_support\/preflight\.ts && deno test /);
});
