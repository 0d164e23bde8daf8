import { sealpost } from "../_support/cli.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startInstance } from "../_support/server.ts";
import { random, sha256 } from "./_helpers.ts";
import { readUrl } from "./_http.ts";

Deno.test("sealpost blob put: uploads and prints the owned file reference", async () => {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir();
  try {
    const bytes = random(70_000);
    const file = join(dir, "scan.pdf");
    await Deno.writeFile(file, bytes);
    const userId = inst.credentials.userId;
    const hash = sha256(bytes);

    const put = await sealpost([
      "blob",
      "put",
      file,
      "--user",
      userId,
      "--url",
      inst.url,
      "--json",
    ]);
    assert.equal(put.code, 0, put.stderr);
    assert.equal(put.stdout.trim().split("\n").length, 1);
    const ref = JSON.parse(put.stdout);
    assert.deepEqual(ref, {
      url: `${inst.url}/submissions/blob/${userId}/${hash}`,
      hash,
      owned: true,
      fileName: "scan.pdf",
      mime: "application/pdf",
      sizeBytes: 70_000,
    });
    const read = await readUrl(inst, hash);
    assert.equal(read.status, 200);
    const got = await fetch(read.body.url);
    assert.equal(got.headers.get("content-type"), "application/pdf");
    assert.deepEqual(await got.bytes(), bytes);

    // The instance from SEALPOST_URL, --mime, pretty output by default.
    const again = await sealpost(
      ["blob", "put", file, "--user", userId, "--mime", "image/png"],
      { SEALPOST_URL: inst.url },
    );
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.includes('\n  "hash": '));
    assert.equal(JSON.parse(again.stdout).mime, "image/png");
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sealpost blob: help, usage errors (2) and refusals (1)", async () => {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "a.txt");
    await Deno.writeTextFile(file, "hello");
    const empty = join(dir, "empty.txt");
    await Deno.writeTextFile(empty, "");
    const help = await sealpost(["blob", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /sealpost blob put <file> --user <id>/);
    const top = await sealpost(["--help"]);
    assert.match(top.stdout, /blob put/);
    const url = ["--url", inst.url];
    for (
      const args of [
        ["blob"],
        ["blob", "get", file],
        ["blob", "put"],
        ["blob", "put", file],
        ["blob", "put", file, file, "--user", "u"],
        ["blob", "put", join(dir, "missing.txt"), "--user", "u"],
        ["blob", "put", dir, "--user", "u"],
        ["blob", "put", file, "--user", "u", "--bogus"],
      ]
    ) {
      const res = await sealpost([...args, ...url]);
      assert.equal(res.code, 2, `${args.join(" ")}: ${res.stderr}`);
    }
    const unknown = await sealpost(["blob", "put", file, "--user", "nobody", "--json", ...url]);
    assert.equal(unknown.code, 1);
    assert.equal(JSON.parse(unknown.stderr).error.code, "unknown_recipient");
    const tooSmall = await sealpost([
      "blob",
      "put",
      empty,
      "--user",
      inst.credentials.userId,
      ...url,
    ]);
    assert.equal(tooSmall.code, 1);
    assert.match(tooSmall.stderr, /invalid_file/);
    const badMime = await sealpost([
      "blob",
      "put",
      file,
      "--user",
      inst.credentials.userId,
      "--mime",
      "not a type",
      ...url,
    ]);
    assert.equal(badMime.code, 1);
    assert.match(badMime.stderr, /mime/);
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});
