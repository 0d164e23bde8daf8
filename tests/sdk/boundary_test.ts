/**
 * The SDK runs unchanged in Deno, Node and browsers: its module graph holds only src/sdk,
 * src/crypto and src/forms, @noble/* and zod, and no Deno-only API.
 */
import assert from "node:assert/strict";

Deno.test("the SDK imports nothing server-side and nothing runtime-specific", async () => {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("../../src/sdk/mod.ts", import.meta.url).pathname],
    stdout: "piped",
  }).output();
  assert.equal(info.code, 0);
  const graph = JSON.parse(new TextDecoder().decode(info.stdout));
  const src = new URL("../../src/", import.meta.url).href;
  const local: string[] = [];
  for (const { specifier } of graph.modules as { specifier: string }[]) {
    if (specifier.startsWith("file:")) {
      assert.ok(specifier.startsWith(src), specifier);
      const folder = specifier.slice(src.length).split("/")[0];
      assert.ok(["sdk", "crypto", "forms"].includes(folder), `SDK reaches ${specifier}`);
      local.push(specifier);
    } else {
      assert.match(specifier, /^npm:\/?(@noble\/(ciphers|curves|hashes)|zod)@/, specifier);
    }
  }
  assert.ok(local.length > 10);
  for (const file of local) {
    const code = (await Deno.readTextFile(new URL(file))).split("\n")
      .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line)).join("\n");
    assert.doesNotMatch(code, /\bDeno\.|from "node:/, `${file} uses a runtime-specific API`);
  }
});
