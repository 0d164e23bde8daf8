import assert from "node:assert/strict";
import { WORKERS } from "../../src/build/bundle.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("every worker is embedded by the compile task and located by the module the bundle maps", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const includes = [...String(config.tasks.compile).matchAll(/--include (\S+)/g)].map((m) => m[1]);
  assert.deepEqual(includes.sort(), WORKERS.map((w) => w.worker).sort());
  for (const { worker, locatorModule, locator } of WORKERS) {
    const located = await import(new URL(locatorModule, ROOT).href);
    assert.equal(typeof located[locator], "function", `${locatorModule} exports ${locator}`);
    assert.equal(located[locator](), new URL(worker, ROOT).href);
  }
});
