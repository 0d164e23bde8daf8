import assert from "node:assert/strict";
import { applyAll, KV_LIMITS, KvWrite } from "../../../src/store/kv/write.ts";
import { storedSize, WriteTooLargeError } from "../../../src/store/ports/limits.ts";
import { addKvPart, kvPart } from "../../../src/store/kv/write_part.ts";

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

Deno.test("storedSize: close to Deno KV's own accounting for the value shapes the store writes", () => {
  assert.equal(storedSize(new Uint8Array(500)), 508);
  assert.equal(storedSize("abc"), 8);
  assert.equal(storedSize("é"), 6, "Latin-1 stays one byte a character");
  assert.equal(storedSize("€"), 7, "wider characters take two");
  const row = { id: "x".repeat(32), n: 3, tags: ["a", "b"], nested: { ok: true } };
  const size = storedSize(row);
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

Deno.test("applyAll: sums on one key fold into one; a key also set keeps its sums in order", async () => {
  using kv = await Deno.openKv(":memory:");
  const writes = Array.from(
    { length: 50 },
    (_, i) => new KvWrite().set(["row", i], i).sum(["count"], 1n).sum(["day", "2026-11-23"], 1n),
  );
  writes.push(new KvWrite().sum(["count"], 0xffff_ffff_ffff_ffffn)); // minus one
  writes.push(new KvWrite().set(["reset"], new Deno.KvU64(10n)), new KvWrite().sum(["reset"], 5n));
  let sums = 0;
  const op = kv.atomic();
  const sum = op.sum.bind(op);
  op.sum = (key, n) => {
    sums++;
    return sum(key, n);
  };
  assert.ok((await applyAll(writes, op).commit()).ok);
  assert.equal(sums, 3, "count, day, and reset's own sum");
  assert.equal((await kv.get<Deno.KvU64>(["count"])).value?.value, 49n);
  assert.equal((await kv.get<Deno.KvU64>(["day", "2026-11-23"])).value?.value, 50n);
  assert.equal((await kv.get<Deno.KvU64>(["reset"])).value?.value, 15n);
  assert.equal((await kv.get(["row", 49])).value, 49);
});
