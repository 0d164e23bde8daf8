import assert from "node:assert/strict";
import { join } from "node:path";
import { call, startInstance } from "../_support/server.ts";
import { random, sha256, streamOf } from "./_helpers.ts";
import { otherUser, rawStatus, readUrl, signerOf, slot, upload } from "./_http.ts";

const CAP = 52_428_800;

Deno.test("POST /submissions/upload-slot: 200 {url, key, expiresAtUtc}; every 400", async (t) => {
  const inst = await startInstance();
  const userId = inst.credentials.userId;
  const hash = sha256(random(10));
  try {
    await t.step("200 with the spec's three fields; mime and sizeBytes optional", async () => {
      for (
        const body of [
          { recipientUserId: userId, hash },
          { recipientUserId: userId, hash, mime: null, sizeBytes: null },
          { recipientUserId: userId, hash, mime: "image/png", sizeBytes: 1 },
          { recipientUserId: userId, hash, mime: "text/plain; charset=utf-8", sizeBytes: CAP },
        ]
      ) {
        const before = Date.now();
        const res = await slot(inst, body);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body).sort(), ["expiresAtUtc", "key", "url"]);
        assert.equal(res.body.key, `${userId}/${hash}`);
        assert.ok(res.body.url.startsWith(`${inst.url}/blobs/${userId}/${hash}?`));
        const expires = Date.parse(res.body.expiresAtUtc);
        assert.ok(expires >= before + 899_000 && expires <= Date.now() + 900_000);
      }
    });

    await t.step("400 naming the field: recipientUserId, hash, sizeBytes, mime", async () => {
      const cases: [unknown, string, string][] = [
        [{ hash }, "recipientUserId", "invalid_request"],
        [{ recipientUserId: 42, hash }, "recipientUserId", "invalid_request"],
        [{ recipientUserId: "", hash }, "recipientUserId", "invalid_request"],
        [{ recipientUserId: "../etc", hash }, "recipientUserId", "invalid_request"],
        [{ recipientUserId: "nobody", hash }, "recipientUserId", "unknown_recipient"],
        [{ recipientUserId: "tmp", hash }, "recipientUserId", "unknown_recipient"],
        [{ recipientUserId: userId }, "hash", "invalid_request"],
        [{ recipientUserId: userId, hash: hash.toUpperCase() }, "hash", "invalid_request"],
        [{ recipientUserId: userId, hash: hash.slice(1) }, "hash", "invalid_request"],
        [{ recipientUserId: userId, hash: hash + "0" }, "hash", "invalid_request"],
        [{ recipientUserId: userId, hash, sizeBytes: 0 }, "sizeBytes", "invalid_request"],
        [{ recipientUserId: userId, hash, sizeBytes: -1 }, "sizeBytes", "invalid_request"],
        [{ recipientUserId: userId, hash, sizeBytes: CAP + 1 }, "sizeBytes", "invalid_request"],
        [{ recipientUserId: userId, hash, sizeBytes: 1.5 }, "sizeBytes", "invalid_request"],
        [{ recipientUserId: userId, hash, sizeBytes: "10" }, "sizeBytes", "invalid_request"],
        [{ recipientUserId: userId, hash, mime: "not a type" }, "mime", "invalid_request"],
        [{ recipientUserId: userId, hash, mime: 'a/b; x="\n"' }, "mime", "invalid_request"],
        [{ recipientUserId: userId, hash, mime: "" }, "mime", "invalid_request"],
      ];
      for (const [body, field, code] of cases) {
        const res = await slot(inst, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, code, JSON.stringify(body));
        assert.equal(res.body.error.field, field, JSON.stringify(body));
      }
      const notJson = await call(`${inst.url}/submissions/upload-slot`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      });
      assert.equal(notJson.status, 400);
      assert.equal(notJson.body.error.code, "invalid_json");
    });

    await t.step("the OpenAPI document describes every blob route", async () => {
      const doc = await call(`${inst.url}/openapi.json`);
      for (
        const [path, method] of [
          ["/submissions/upload-slot", "post"],
          ["/blobs/{userId}/{hash}", "put"],
          ["/blobs/{userId}/{hash}", "get"],
          ["/submissions/blob/{recipientUserId}/{hash}", "get"],
          ["/owner/blobs/claim", "post"],
          ["/owner/blobs/release", "post"],
        ]
      ) {
        assert.ok(doc.body.paths[path]?.[method], `${method} ${path}`);
      }
    });
  } finally {
    await inst.close();
  }
});

Deno.test("PUT: stored, idempotent, and every rejection leaves nothing behind", async (t) => {
  const inst = await startInstance();
  const tmp = join(inst.config.data_dir, "blobs", "tmp");
  const stored = async (hash: string) => (await readUrl(inst, hash)).status === 200;
  try {
    await t.step(
      "the same bytes again: the same 201 and body (idempotent, no oracle)",
      async () => {
        const bytes = random(1000);
        const first = await upload(inst, bytes, { mime: "image/png", sizeBytes: 1000 });
        assert.equal(first.put.status, 201);
        assert.deepEqual(first.put.body, {
          key: first.slot.key,
          hash: sha256(bytes),
          sizeBytes: 1000,
          mime: "image/png",
        });
        const again = await call(first.slot.url, {
          method: "PUT",
          body: bytes,
          headers: { "content-type": "image/png" },
        });
        assert.equal(again.status, 201);
        assert.deepEqual(again.body, first.put.body);
        // Another uploader of the same bytes with another declared mime learns nothing of the
        // first upload: its answer is built from its own request.
        const other = await upload(inst, bytes, { mime: "image/jpeg", sizeBytes: 1000 });
        assert.equal(other.put.status, 201);
        assert.deepEqual(other.put.body, { ...first.put.body, mime: "image/jpeg" });
      },
    );

    await t.step("Content-Type must be the signed mime", async () => {
      const cases: [string | undefined, string | null, number][] = [
        ["image/png", "image/jpeg", 403],
        ["image/png", null, 403],
        ["image/png", "image/png; x=1", 403],
        ["image/png", "IMAGE/PNG", 201],
        ["text/plain; charset=utf-8", "text/plain", 403],
        ["text/plain; charset=utf-8", "text/plain;charset=utf-8", 201],
        ["text/plain; charset=utf-8", "text/plain; charset=UTF-8", 403],
        // No mime signed: none or application/octet-stream only.
        [undefined, "text/html", 403],
        [undefined, "image/png", 403],
        [undefined, null, 201],
        [undefined, "application/octet-stream", 201],
      ];
      for (const [mime, contentType, status] of cases) {
        const bytes = random(64);
        const { put } = await upload(inst, bytes, { mime, contentType });
        assert.equal(put.status, status, `${mime} / ${contentType}: ${JSON.stringify(put.body)}`);
        if (status === 403) {
          assert.equal(put.body.error.code, "content_type_mismatch");
          assert.equal(await stored(sha256(bytes)), false);
        }
      }
    });

    await t.step("a body over the signed size or the 50 MB cap: 413 file_too_large", async () => {
      const bytes = random(11);
      const granted = await slot(inst, {
        recipientUserId: inst.credentials.userId,
        hash: sha256(bytes),
        sizeBytes: 10,
      });
      const declared = await call(granted.body.url, { method: "PUT", body: bytes });
      assert.equal(declared.status, 413);
      assert.equal(declared.body.error.code, "file_too_large");
      const streamed = await call(granted.body.url, { method: "PUT", body: streamOf(bytes, 3) });
      assert.equal(streamed.status, 413);
      assert.equal(streamed.body.error.code, "file_too_large");
      // Over the cap, declared: refused before a byte of the body is read.
      const big = await slot(inst, {
        recipientUserId: inst.credentials.userId,
        hash: sha256(bytes),
      });
      const path = new URL(big.body.url);
      assert.equal(
        await rawStatus(inst, "PUT", path.pathname + path.search, {
          "Content-Length": String(CAP + 1),
        }),
        413,
      );
      assert.equal(await stored(sha256(bytes)), false);
    });

    await t.step("bytes that do not hash to the slot's hash: 400 hash_mismatch", async () => {
      const bytes = random(5000);
      const granted = await slot(inst, {
        recipientUserId: inst.credentials.userId,
        hash: sha256(bytes),
      });
      const other = bytes.slice();
      other[4999] ^= 0xff;
      for (const body of [other, bytes.subarray(0, 4999), streamOf(other, 1000)]) {
        const res = await call(granted.body.url, { method: "PUT", body });
        assert.equal(res.status, 400);
        assert.equal(res.body.error.code, "hash_mismatch");
      }
      const empty = await call(granted.body.url, { method: "PUT", body: new Uint8Array(0) });
      assert.equal(empty.status, 400);
      assert.equal(empty.body.error.code, "empty_body");
      assert.equal(await stored(sha256(bytes)), false);
    });

    await t.step("concurrent uploads of the same hash: all succeed, one stores", async () => {
      const bytes = random(300_000);
      const granted = await slot(inst, {
        recipientUserId: inst.credentials.userId,
        hash: sha256(bytes),
      });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          call(granted.body.url, {
            method: "PUT",
            body: i % 2 ? bytes : streamOf(bytes, 16_384),
          })),
      );
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(201));
      assert.equal(new Set(results.map((r) => JSON.stringify(r.body))).size, 1);
      const read = await readUrl(inst, sha256(bytes));
      const got = await fetch(read.body.url);
      assert.equal(sha256(await got.bytes()), sha256(bytes));
    });

    await t.step("no temporary file is left behind", async () => {
      assert.deepEqual(await Array.fromAsync(Deno.readDir(tmp)), []);
    });
  } finally {
    await inst.close();
  }
});

Deno.test("PUT tamper matrix: each signed parameter altered alone is refused (403)", async () => {
  const inst = await startInstance();
  try {
    const other = await otherUser(inst);
    const bytes = random(100);
    const hash = sha256(bytes);
    const granted = await slot(inst, {
      recipientUserId: inst.credentials.userId,
      hash,
      mime: "image/png",
      sizeBytes: 100,
    });
    const valid = new URL(granted.body.url);
    const altered = (edit: (url: URL) => void) => {
      const url = new URL(valid);
      edit(url);
      return url.href;
    };
    const q = (name: string, value: string | null) => (url: URL) =>
      value === null ? url.searchParams.delete(name) : url.searchParams.set(name, value);
    const p = valid.searchParams;
    const sig = p.get("sig")!;
    const cases: [string, string, string][] = [
      ["expires + 1", altered(q("expires", String(Number(p.get("expires")) + 1))), "image/png"],
      ["expires 0-padded", altered(q("expires", "0" + p.get("expires"))), "image/png"],
      ["expires dropped", altered(q("expires", null)), "image/png"],
      ["mime changed", altered(q("mime", "text/html")), "text/html"],
      ["mime dropped", altered(q("mime", null)), ""],
      ["max + 1", altered(q("max", "101")), "image/png"],
      ["max dropped", altered(q("max", null)), "image/png"],
      ["sig changed", altered(q("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1))), "image/png"],
      ["sig dropped", altered(q("sig", null)), "image/png"],
      [
        "path user",
        altered((u) => u.pathname = `/blobs/${other.id}/${hash}`),
        "image/png",
      ],
      [
        "path hash",
        altered((u) => u.pathname = `/blobs/${inst.credentials.userId}/${sha256(random(5))}`),
        "image/png",
      ],
    ];
    for (const [what, url, type] of cases) {
      const res = await call(url, {
        method: "PUT",
        body: bytes,
        headers: type ? { "content-type": type } : {},
      });
      assert.equal(res.status, 403, what);
      assert.equal(res.body.error.code, "signature_mismatch", what);
    }
    // Method: the PUT URL does not read, and a read URL does not write.
    const asGet = await call(valid.href);
    assert.equal(asGet.status, 403);
    assert.equal((await readUrl(inst, hash)).status, 404, "nothing was stored");
    const ok = await call(valid.href, {
      method: "PUT",
      body: bytes,
      headers: { "content-type": "image/png" },
    });
    assert.equal(ok.status, 201, "the untouched URL still works");
    const read = await readUrl(inst, hash);
    const putToRead = await call(read.body.url, { method: "PUT", body: bytes });
    assert.equal(putToRead.status, 403);
    assert.equal(putToRead.body.error.code, "signature_mismatch");
  } finally {
    await inst.close();
  }
});

Deno.test("expired URLs are refused: 403 url_expired", async () => {
  const inst = await startInstance();
  try {
    const signer = await signerOf(inst);
    const bytes = random(100);
    const hash = sha256(bytes);
    const path = `/blobs/${inst.credentials.userId}/${hash}`;
    const expires = Math.floor(Date.now() / 1000) - 1;
    const putSig = await signer.sign({ method: "PUT", path, expires, mime: null, maxBytes: 100 });
    const put = await call(`${inst.url}${path}?expires=${expires}&max=100&sig=${putSig}`, {
      method: "PUT",
      body: bytes,
    });
    assert.equal(put.status, 403);
    assert.equal(put.body.error.code, "url_expired");
    const fresh = Math.floor(Date.now() / 1000) + 60;
    const freshSig = await signer.sign({
      method: "PUT",
      path,
      expires: fresh,
      mime: null,
      maxBytes: 100,
    });
    const ok = await call(`${inst.url}${path}?expires=${fresh}&max=100&sig=${freshSig}`, {
      method: "PUT",
      body: bytes,
    });
    assert.equal(ok.status, 201);
    const getSig = await signer.sign({ method: "GET", path, expires, mime: null, maxBytes: null });
    const get = await call(`${inst.url}${path}?expires=${expires}&sig=${getSig}`);
    assert.equal(get.status, 403);
    assert.equal(get.body.error.code, "url_expired");
  } finally {
    await inst.close();
  }
});

Deno.test("path traversal in every segment is refused and touches no file", async () => {
  const inst = await startInstance();
  try {
    const data = inst.config.data_dir;
    const before = (await Array.fromAsync(Deno.readDir(data))).map((e) => e.name).sort();
    const user = inst.credentials.userId;
    const hash = sha256(random(10));
    const bad = [
      "..",
      "%2e%2e",
      "..%2f..%2f..%2fetc",
      "%2e%2e%2f%2e%2e",
      "..%5c..",
      "tmp",
      "a%00b",
      "%2f",
      "...",
    ];
    const paths: string[] = [];
    for (const segment of bad) {
      paths.push(`/blobs/${segment}/${hash}`, `/blobs/${user}/${segment}`);
      paths.push(`/submissions/blob/${segment}/${hash}`, `/submissions/blob/${user}/${segment}`);
    }
    paths.push(
      `/blobs/${user}/../../../escape`,
      `/blobs/../../${hash}`,
      `/blobs/${user}/${hash}/../../../../escape`,
      `/submissions/blob/../../${user}/${hash}`,
    );
    const granted = await slot(inst, { recipientUserId: user, hash });
    const query = new URL(granted.body.url).search;
    for (const path of paths) {
      for (const method of ["PUT", "GET"]) {
        const status = await rawStatus(
          inst,
          method,
          path + (path.startsWith("/blobs/") ? query : ""),
          path.startsWith("/submissions/")
            ? { Authorization: `Bearer ${inst.credentials.ownerToken}` }
            : {},
          method === "PUT" ? "x" : "",
        );
        assert.ok(status >= 400 && status < 500, `${method} ${path}: ${status}`);
      }
    }
    const after = (await Array.fromAsync(Deno.readDir(data))).map((e) => e.name).sort();
    assert.deepEqual(after, before);
    const blobs = (await Array.fromAsync(Deno.readDir(join(data, "blobs")))).map((e) => e.name);
    assert.deepEqual(blobs, ["tmp"]);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(join(data, "blobs", "tmp"))), []);
  } finally {
    await inst.close();
  }
});
