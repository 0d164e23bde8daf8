import assert from "node:assert/strict";
import { KV_LIMITS, KvWrite, valueSize, WriteTooLargeError } from "../../src/store/write.ts";
import { addKvPart, kvPart } from "../../src/store/write_part.ts";

Deno.test("KvWrite: counts checks, mutations and bytes as it records them", () => {
  const w = new KvWrite()
    .check({ key: ["a"], versionstamp: null })
    .set(["a"], new Uint8Array(1000))
    .delete(["b"])
    .sum(["c"], 1n)
    .enqueue({ kind: "x" }, { delay: 5 });
  assert.equal(w.checks, 1);
  assert.equal(w.mutations, 4);
  assert.ok(w.bytes >= 1000 && w.bytes < 1100, `${w.bytes} bytes`);
  assert.deepEqual(w.checked, [{ key: ["a"], versionstamp: null }]);
});

Deno.test("KvWrite: nothing is written before commit; a failed check writes nothing", async () => {
  using kv = await Deno.openKv(":memory:");
  const w = new KvWrite().check({ key: ["a"], versionstamp: null }).set(["a"], 1).sum(["n"], 2n);
  assert.equal((await kv.get(["a"])).value, null);
  assert.equal(await w.commit(kv), true);
  assert.equal((await kv.get(["a"])).value, 1);
  assert.equal((await kv.get<Deno.KvU64>(["n"])).value?.value, 2n);
  const again = new KvWrite().check({ key: ["a"], versionstamp: null }).set(["a"], 2);
  assert.equal(await again.commit(kv), false);
  assert.equal((await kv.get(["a"])).value, 1);
});

Deno.test("KvWrite: a value over Deno KV's 64 KiB throws WriteTooLargeError", async () => {
  using kv = await Deno.openKv(":memory:");
  const w = new KvWrite().set(["big"], new Uint8Array(KV_LIMITS.valueBytes + 1));
  await assert.rejects(() => w.commit(kv), WriteTooLargeError);
});

Deno.test("valueSize: close to Deno KV's own accounting for the value shapes the store writes", () => {
  assert.equal(valueSize(new Uint8Array(500)), 508);
  assert.equal(valueSize("abc"), 8);
  assert.equal(valueSize("é"), 6, "Latin-1 stays one byte a character");
  assert.equal(valueSize("€"), 7, "wider characters take two");
  const row = { id: "x".repeat(32), n: 3, tags: ["a", "b"], nested: { ok: true } };
  const size = valueSize(row);
  const json = JSON.stringify(row).length;
  assert.ok(size >= json * 0.8 && size <= json * 1.5, `${size} vs JSON ${json}`);
});

Deno.test("write parts: a part joins a Deno KV write; a part of another backend is refused", async () => {
  using kv = await Deno.openKv(":memory:");
  const w = new KvWrite().set(["record"], 1);
  addKvPart(w, kvPart((part) => part.delete(["queue", 1])));
  assert.equal(w.mutations, 2);
  assert.equal(await w.commit(kv), true);
  assert.throws(() => addKvPart(new KvWrite(), { backend: "postgres" }), TypeError);
});
