import assert from "node:assert/strict";
import { join } from "node:path";
import { parseTarHeader, readTar, tarHeader, TarWriter } from "../../src/backup/tar.ts";

Deno.test("tar: files round-trip, long names split over prefix, padding and end blocks", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-tar-" });
  try {
    const path = join(dir, "a.tar");
    const long = `blobs/${"u".repeat(40)}/ab/cd/${"ab".repeat(32)}`;
    const files = [
      { name: "store/sealpost.kv", data: crypto.getRandomValues(new Uint8Array(1300)) },
      { name: long, data: new Uint8Array(512).fill(7) },
      { name: "empty", data: new Uint8Array(0) },
    ];
    const file = await Deno.open(path, { write: true, createNew: true });
    const tar = new TarWriter(file.writable.getWriter());
    for (const f of files) {
      await tar.add(
        { name: f.name, size: f.data.length, mode: 0o600, mtime: 1_700_000_000 },
        ReadableStream.from([f.data]),
      );
    }
    await tar.finish();
    assert.equal((await Deno.stat(path)).size % 512, 0);
    const read: { name: string; mode: number; data: Uint8Array }[] = [];
    using input = await Deno.open(path);
    await readTar(input, async (entry, data) => {
      assert.equal(entry.mtime, 1_700_000_000);
      read.push({ name: entry.name, mode: entry.mode, data: await new Response(data).bytes() });
    });
    assert.deepEqual(read.map((r) => r.name), files.map((f) => f.name));
    for (const [i, r] of read.entries()) {
      assert.deepEqual(r.data, files[i].data);
      assert.equal(r.mode, 0o600);
    }
    // Standard: the system's tar lists the same names.
    const listed = await new Deno.Command("tar", { args: ["tf", path], stdout: "piped" }).output();
    assert.ok(listed.success);
    assert.deepEqual(
      new TextDecoder().decode(listed.stdout).trim().split("\n"),
      files.map((f) => f.name),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tar: sizes past the octal field use base-256; a bad checksum is refused", () => {
  const size = 9 * 1024 ** 3;
  const header = tarHeader({ name: "big", size, mode: 0o600, mtime: 0 });
  assert.equal(header[124], 0x80);
  assert.equal(parseTarHeader(header)!.size, size);
  header[0] ^= 1;
  assert.throws(() => parseTarHeader(header), /checksum/);
  assert.equal(parseTarHeader(new Uint8Array(512)), null, "an end block");
  assert.throws(() => tarHeader({ name: "x".repeat(101), size: 0, mode: 0, mtime: 0 }), /too long/);
});

Deno.test("tar: a writer refuses data that differs from the declared size", async () => {
  const sink = new WritableStream<Uint8Array>();
  const tar = new TarWriter(sink.getWriter());
  await assert.rejects(
    tar.add({ name: "a", size: 3, mode: 0, mtime: 0 }, ReadableStream.from([new Uint8Array(2)])),
    /shrank/,
  );
});
