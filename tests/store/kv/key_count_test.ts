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
    // Bytes parts (a fingerprint's), one with a zero byte, one a prefix of the other.
    const bytes = [Uint8Array.of(0xab, 0x00, 0xcd), Uint8Array.of(0xab)];
    for (let i = 0; i < 3; i++) await kv.set(["queue", bytes[0], i], i);
    for (let i = 0; i < 2; i++) await kv.set(["queue", bytes[1], i], i);
    const listed = async (prefix: (string | Uint8Array)[]) => {
      let n = 0;
      for await (const _ of kv.list({ prefix })) n++;
      return n;
    };
    const prefixes = [["queue", "abc"], ["queue", "ab"], ["queue", "a\u0000c"], ["queue"]];
    for (const prefix of [...prefixes, ["queue", bytes[0]], ["queue", bytes[1]]]) {
      assert.equal(counter.count(prefix, 1000), await listed(prefix), prefix.join("/"));
    }
    assert.equal(counter.count(["queue", bytes[0]], 1000), 3);
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
