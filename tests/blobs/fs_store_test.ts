import assert from "node:assert/strict";
import { join } from "node:path";
import { BlobWriteError, FsBlobStore } from "../../src/blobs/index.ts";
import { random, sha256, streamOf } from "./_helpers.ts";

async function withStore(fn: (store: FsBlobStore, root: string) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "sealpost-blobs-" });
  try {
    await fn(await FsBlobStore.open(root), root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function tmpFiles(root: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(join(root, "tmp")))).map((e) => e.name);
}

Deno.test("stage + commit: sharded content-addressed layout, byte and plain streams", async () => {
  await withStore(async (store, root) => {
    for (const byob of [true, false]) {
      const bytes = random(300_000 + (byob ? 1 : 0));
      const key = { userId: "user_1", hash: sha256(bytes) };
      assert.equal(await store.size(key), null);
      const staged = await store.stage(key, streamOf(bytes, 10_007, byob), 1_000_000);
      assert.equal(staged.sizeBytes, bytes.length);
      assert.equal(await store.size(key), null, "invisible until committed");
      await staged.commit();
      await staged.discard();
      const path = join(root, "user_1", key.hash.slice(0, 2), key.hash.slice(2, 4), key.hash);
      assert.equal(store.pathOf(key), path);
      assert.deepEqual(await Deno.readFile(path), bytes);
      assert.equal(await store.size(key), bytes.length);
      assert.deepEqual(await new Response(await store.read(key)).bytes(), bytes);
      assert.deepEqual(
        await new Response(await store.read(key, { start: 5, end: 299_999 })).bytes(),
        bytes.slice(5, 300_000),
      );
      await store.remove(key);
      assert.equal(await store.read(key), null);
      await store.remove(key);
    }
    assert.deepEqual(await tmpFiles(root), []);
  });
});

Deno.test("stage refuses too large, empty, mismatched, unreadable bodies; none stays", async () => {
  await withStore(async (store, root) => {
    const bytes = random(200_000);
    const key = { userId: "u", hash: sha256(bytes) };
    const reason = async (body: ReadableStream<Uint8Array>, max: number) => {
      try {
        await store.stage(key, body, max);
      } catch (err) {
        assert.ok(err instanceof BlobWriteError);
        return err.reason;
      }
      return "accepted";
    };
    assert.equal(await reason(streamOf(bytes, 4096, true), bytes.length - 1), "too_large");
    assert.equal(await reason(streamOf(bytes, 4096, false), 1000), "too_large");
    assert.equal(await reason(streamOf(new Uint8Array(0), 1, true), 10), "empty");
    const other = bytes.slice();
    other[7] ^= 1;
    assert.equal(await reason(streamOf(other, 65536, true), 1_000_000), "hash_mismatch");
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 1000));
        controller.error(new Error("connection reset"));
      },
    });
    assert.equal(await reason(broken, 1_000_000), "unreadable");
    assert.deepEqual(await tmpFiles(root), []);
    assert.equal(await store.size(key), null);
  });
});

Deno.test("a too-large body is refused after at most one buffer past the cap", async () => {
  await withStore(async (store) => {
    let pulled = 0;
    const endless = new ReadableStream({
      type: "bytes",
      pull(controller) {
        const view = controller.byobRequest!.view!;
        new Uint8Array(view.buffer, view.byteOffset, view.byteLength).fill(1);
        pulled += view.byteLength;
        controller.byobRequest!.respond(view.byteLength);
      },
    });
    await assert.rejects(
      store.stage(
        { userId: "u", hash: "0".repeat(64) },
        endless as ReadableStream<Uint8Array>,
        52_428_800,
      ),
      (err: BlobWriteError) => err.reason === "too_large",
    );
    assert.ok(pulled <= 52_428_800 + 1024 * 1024, `pulled ${pulled}`);
  });
});

Deno.test("open removes leftover temp files; keys that could leave the root throw", async () => {
  const root = await Deno.makeTempDir({ prefix: "sealpost-blobs-" });
  try {
    await Deno.mkdir(join(root, "tmp"));
    await Deno.writeTextFile(join(root, "tmp", "crashed.part"), "half an upload");
    const store = await FsBlobStore.open(root);
    assert.deepEqual(await tmpFiles(root), []);
    const hash = "a".repeat(64);
    for (
      const key of [
        { userId: "..", hash },
        { userId: "../x", hash },
        { userId: "a/b", hash },
        { userId: "", hash },
        { userId: "tmp", hash },
        { userId: "TMP", hash },
        { userId: "u", hash: "../../" + "a".repeat(58) },
        { userId: "u", hash: "A".repeat(64) },
        { userId: "u", hash: "a".repeat(63) },
      ]
    ) {
      assert.throws(() => store.pathOf(key), TypeError, JSON.stringify(key));
      await assert.rejects(store.read(key), TypeError);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Reads `stream` with a BYOB reader into one reused buffer of `view` bytes. */
async function readByob(stream: ReadableStream<Uint8Array>, view: number): Promise<Uint8Array> {
  const reader = stream.getReader({ mode: "byob" });
  const parts: Uint8Array[] = [];
  let buffer = new ArrayBuffer(view);
  for (;;) {
    const step = await reader.read(new Uint8Array(buffer));
    if (step.value?.byteLength) parts.push(step.value.slice());
    if (step.done) break;
    buffer = step.value!.buffer as ArrayBuffer;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) out.set(part, (at += part.length) - part.length);
  return out;
}

Deno.test("read: a byte stream; BYOB readers fill their own buffer, whole file or a range", async () => {
  await withStore(async (store) => {
    const bytes = random(700_001);
    const key = { userId: "user_1", hash: sha256(bytes) };
    await (await store.stage(key, streamOf(bytes, 65_536, true), 1_000_000)).commit();
    for (const view of [4096, 65_552, 1 << 20]) {
      assert.deepEqual(await readByob((await store.read(key))!, view), bytes, `view ${view}`);
    }
    assert.deepEqual(
      await readByob((await store.read(key, { start: 3, end: 400_000 }))!, 100_000),
      bytes.slice(3, 400_001),
    );
  });
});
