import assert from "node:assert/strict";
import { join } from "node:path";
import { KeyCounter } from "../../../src/store/kv/key_count.ts";

Deno.test("key counter: counts what kv.list sees under a prefix, capped, large values unread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-keycount-" });
  const path = join(dir, "store.kv");
  const kv = await Deno.openKv(path);
  const counter = new KeyCounter(path);
  try {
    for (let i = 0; i < 30; i++) await kv.set(["queue", "abc", i], new Uint8Array(60_000));
    for (let i = 0; i < 4; i++) await kv.set(["queue", "ab", i], i);
    await kv.set(["queue", "abc"], "the prefix itself is not under it");
    await kv.set(["queue", "a\u0000c", 1], "a zero byte in a key part");
    await kv.set(["queuex", "abc", 1], "a longer sibling");
    const listed = async (prefix: string[]) => {
      let n = 0;
      for await (const _ of kv.list({ prefix })) n++;
      return n;
    };
    for (const prefix of [["queue", "abc"], ["queue", "ab"], ["queue", "a\u0000c"], ["queue"]]) {
      assert.equal(counter.count(prefix, 1000), await listed(prefix), prefix.join("/"));
    }
    assert.equal(counter.count(["queue", "abc"], 10), 10, "capped");
    assert.equal(counter.count(["nothing"], 10), 0);
    await kv.delete(["queue", "abc", 0]);
    assert.equal(counter.count(["queue", "abc"], 1000), 29, "sees later writes");
  } finally {
    counter.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
