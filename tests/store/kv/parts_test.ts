import assert from "node:assert/strict";
import {
  deleteParts,
  readJsonParts,
  readParts,
  ValueTooLargeError,
  writeJsonParts,
  writeParts,
  writePartsInSteps,
} from "../../../src/store/kv/parts.ts";
import { MAX_LARGE_VALUE_BYTES, PART_BYTES, partCount } from "../../../src/store/ports/limits.ts";
import { KvWrite } from "../../../src/store/kv/write.ts";

/** Bytes that differ from part to part, so a part read out of order shows. */
function patterned(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + (i >> 10)) & 0xff);
}

Deno.test("parts: bytes split at PART_BYTES and joined back in order", async () => {
  using kv = await Deno.openKv(":memory:");
  const bytes = patterned(PART_BYTES * 2 + 17);
  const w = new KvWrite();
  assert.equal(writeParts(w, ["v", "a"], bytes), 3);
  assert.equal(w.mutations, 3);
  await w.commit(kv);
  assert.deepEqual(await readParts(kv, ["v", "a"]), bytes);
  assert.equal(await readParts(kv, ["v", "none"]), null);
  const del = new KvWrite();
  deleteParts(del, ["v", "a"], 3);
  await del.commit(kv);
  assert.equal(await readParts(kv, ["v", "a"]), null);
});

Deno.test("parts: an empty value still takes one part; partCount rounds up", () => {
  assert.equal(partCount(0), 1);
  assert.equal(partCount(PART_BYTES), 1);
  assert.equal(partCount(PART_BYTES + 1), 2);
});

Deno.test("parts: JSON values round-trip; over the limit they are refused before any write", async () => {
  using kv = await Deno.openKv(":memory:");
  const value = { essay: "é".repeat(100_000), n: 1 };
  const w = new KvWrite();
  const parts = writeJsonParts(w, ["j"], value);
  assert.ok(parts >= 4);
  await w.commit(kv);
  assert.deepEqual(await readJsonParts(kv, ["j"]), value);
  assert.throws(
    () => writeJsonParts(new KvWrite(), ["k"], { x: "a".repeat(MAX_LARGE_VALUE_BYTES) }),
    ValueTooLargeError,
  );
});

Deno.test("parts: values larger than one atomic operation are written in steps", async () => {
  using kv = await Deno.openKv(":memory:");
  const bytes = patterned(3 * 1024 * 1024);
  const parts = await writePartsInSteps(kv, ["big"], bytes);
  assert.equal(parts, partCount(bytes.length));
  assert.deepEqual(await readParts(kv, ["big"]), bytes);
});
