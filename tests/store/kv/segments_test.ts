import assert from "node:assert/strict";
import { join } from "node:path";
import { holdSegments, SegmentLog, type SegmentRef } from "../../../src/store/kv/segments.ts";

const bytesOf = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i + seed) & 0xff);

async function files(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

Deno.test("segments: appended values read back after a flush, in one file per 64 MiB", async () => {
  const dir = await Deno.makeTempDir();
  const log = await SegmentLog.open(join(dir, "segments"));
  const values = [bytesOf(1024, 1), bytesOf(70_000, 2), bytesOf(1, 3)];
  const refs = values.map((v) => log.append(v));
  assert.deepEqual(refs.map((r) => [r.s, r.o, r.n]), [[1, 0, 1024], [1, 1024, 70_000], [
    1,
    71_024,
    1,
  ]]);
  await log.flush();
  for (const [i, ref] of refs.entries()) assert.deepEqual(await log.read(ref), values[i]);
  assert.equal(await log.size(1), 71_025);
  assert.deepEqual(await files(join(dir, "segments")), ["000000000001.seg"]);
  await log.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("segments: a full segment is sealed; a reopened log starts a new one", async () => {
  const dir = await Deno.makeTempDir();
  const log = await SegmentLog.open(dir, { segmentBytes: 4096 });
  const refs = Array.from({ length: 5 }, (_, i) => log.append(bytesOf(1500, i)));
  assert.deepEqual(refs.map((r) => r.s), [1, 1, 2, 2, 3]);
  await log.flush();
  assert.deepEqual(await log.read(refs[3]), bytesOf(1500, 3));
  await log.close();
  const again = await SegmentLog.open(dir, { segmentBytes: 4096 });
  assert.equal(
    again.append(bytesOf(10, 9)).s,
    4,
    "never appends after a tail a crash may have cut",
  );
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("segments: flushes called at once write each value once and all become durable", async () => {
  const dir = await Deno.makeTempDir();
  const log = await SegmentLog.open(dir);
  const refs: SegmentRef[] = [];
  await Promise.all(Array.from({ length: 50 }, async (_, i) => {
    refs[i] = log.append(bytesOf(100 + i, i));
    await log.flush();
    assert.deepEqual(await log.read(refs[i]), bytesOf(100 + i, i));
  }));
  assert.ok(refs.every((r) => r.s === 1));
  assert.equal(await log.size(1), refs.reduce((sum, r) => sum + r.n, 0));
  await log.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("segments: sweep deletes sealed segments before the oldest referenced, never one in use", async () => {
  const dir = await Deno.makeTempDir();
  const log = await SegmentLog.open(dir, { segmentBytes: 1000 });
  const refs = [1, 2, 3, 4, 5].map((i) => log.append(bytesOf(900, i))); // segments 1..5
  await log.flush();
  [refs[0], refs[1], refs[3], refs[4]].forEach((ref) => log.settle(ref)); // 3 stays in flight
  assert.equal(await log.sweep(() => Promise.resolve(1)), 0, "rows still refer to segment 1");
  assert.equal(await log.sweep(() => Promise.resolve(2)), 1);
  assert.deepEqual(await files(dir), [2, 3, 4, 5].map((i) => `00000000000${i}.seg`));
  // No row refers to anything: segment 3 holds a value in flight, 5 takes appends.
  assert.equal(await log.sweep(() => Promise.resolve(Infinity)), 1);
  assert.deepEqual(await files(dir), [3, 4, 5].map((i) => `00000000000${i}.seg`));
  log.settle(refs[2]); // its commit failed: nothing refers to it
  assert.equal(await log.sweep(() => Promise.resolve(Infinity)), 2);
  assert.deepEqual(await files(dir), ["000000000005.seg"]);
  assert.deepEqual(await log.read(refs[4]), bytesOf(900, 5));
  await log.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("segments: nothing is deleted while a backup holds them", async () => {
  const dir = await Deno.makeTempDir();
  const log = await SegmentLog.open(dir, { segmentBytes: 10 });
  log.settle(log.append(bytesOf(20, 1)));
  log.settle(log.append(bytesOf(20, 2)));
  await log.flush();
  const release = await holdSegments(dir);
  assert.equal(await log.sweep(() => Promise.resolve(Infinity)), 0);
  await release();
  assert.equal(await log.sweep(() => Promise.resolve(Infinity)), 1);
  await log.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("segments: bytes flushed by a process killed before its commit are swept on restart", async () => {
  const dir = await Deno.makeTempDir();
  const script = `
    import { SegmentLog } from ${
    JSON.stringify(new URL("../../../src/store/kv/segments.ts", import.meta.url).href)
  };
    const log = await SegmentLog.open(${JSON.stringify(dir)}, { segmentBytes: 1000 });
    log.append(new Uint8Array(900).fill(7));
    await log.flush();
    console.log("flushed");
    await new Promise(() => {});`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  assert.match(new TextDecoder().decode(value), /flushed/);
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  const log = await SegmentLog.open(dir);
  assert.deepEqual(await files(dir), ["000000000001.seg"]);
  const none = () => Promise.resolve(Infinity);
  assert.equal(await log.sweep(none), 1, "no row refers to the killed process's bytes");
  await log.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("segments: readMany reads runs of back-to-back values at once, each value its own copy; a missing segment fails only its own refs", async () => {
  const dir = await Deno.makeTempDir();
  const log = await SegmentLog.open(dir, { segmentBytes: 4096 });
  const values = Array.from({ length: 7 }, (_, i) => bytesOf(900 + i, i));
  const refs = values.map((v) => log.append(v)); // segments 1 (4 values), 2 (3 values)
  await log.flush();
  assert.deepEqual(refs.map((r) => r.s), [1, 1, 1, 1, 2, 2, 2]);
  // Out of order and with a gap: several runs, answered in the order asked.
  const asked = [refs[0], refs[1], refs[3], refs[4], refs[5], refs[2]];
  const read = await log.readMany(asked);
  assert.deepEqual(read, [values[0], values[1], values[3], values[4], values[5], values[2]]);
  for (const bytes of read) {
    assert.ok(bytes instanceof Uint8Array);
    assert.equal(bytes.byteOffset, 0);
    assert.equal(bytes.buffer.byteLength, bytes.byteLength, "a copy, not a view of the run");
  }
  const gone: SegmentRef = { s: 9, o: 0, n: 10 };
  const past: SegmentRef = { s: 2, o: refs[6].o + refs[6].n, n: 10 };
  const mixed = await log.readMany([refs[6], gone, past]);
  assert.deepEqual(mixed[0], values[6]);
  assert.ok(mixed[1] instanceof Error);
  assert.ok(mixed[2] instanceof Error && /damaged/.test(mixed[2].message));
  await assert.rejects(log.read(gone));
  await log.close();
  await Deno.remove(dir, { recursive: true });
});
