import assert from "node:assert/strict";
import { join } from "node:path";
import { packTar } from "modern-tar";
import { ArchiveError, ArchiveWriter, readArchive } from "../../src/ops/backup_archive.ts";

async function entriesOf(bytes: Uint8Array) {
  const out: { name: string; mode: number; data: Uint8Array }[] = [];
  await readArchive(ReadableStream.from([bytes]), async (entry, data) => {
    out.push({ name: entry.name, mode: entry.mode, data: await new Response(data).bytes() });
  });
  return out;
}

Deno.test("archive: files round-trip (long names, empty files, modes), readable by the system's tar", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-archive-" });
  try {
    const path = join(dir, "a.tar");
    const files = [
      {
        name: "store/sealpost.kv",
        mode: 0o600,
        data: crypto.getRandomValues(new Uint8Array(1300)),
      },
      {
        name: `blobs/${"u".repeat(40)}/ab/cd/${"ab".repeat(32)}`,
        mode: 0o600,
        data: new Uint8Array(512).fill(7),
      },
      { name: "files/empty", mode: 0o644, data: new Uint8Array(0) },
    ];
    const file = await Deno.open(path, { write: true, createNew: true });
    const archive = new ArchiveWriter(file.writable);
    for (const f of files) {
      await archive.add(
        { name: f.name, size: f.data.length, mode: f.mode },
        ReadableStream.from([f.data]),
      );
    }
    await archive.finish();
    const read = await entriesOf(await Deno.readFile(path));
    assert.deepEqual(read, files);
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

Deno.test("archive: the writer refuses data that differs from the size in the header", async () => {
  for (const [size, message] of [[3, /shrank/], [1, /grew/]] as const) {
    const archive = new ArchiveWriter(new WritableStream());
    await assert.rejects(
      archive.add({ name: "a", size, mode: 0o600 }, ReadableStream.from([new Uint8Array(2)])),
      message,
    );
  }
});

Deno.test("archive: the reader refuses links and damaged headers", async () => {
  const linked = await packTar([
    { header: { name: "files/relay.secret", type: "symlink", linkname: "/etc/passwd", size: 0 } },
  ]);
  await assert.rejects(
    entriesOf(linked),
    (err) => err instanceof ArchiveError && /symlink/.test(err.message),
  );
  const good = await packTar([{ header: { name: "a", size: 1 }, body: "x" }]);
  const damaged = good.slice();
  damaged[10] ^= 0xff; // inside the name: the header checksum no longer matches
  await assert.rejects(
    entriesOf(damaged),
    (err) => err instanceof ArchiveError && /damaged/.test(err.message),
  );
});
