import assert from "node:assert/strict";
import { join } from "node:path";
import { call, startInstance } from "../_support/server.ts";
import { BACKENDS, startOn, stored, urlExpiry } from "./_backends.ts";
import { random, sha256 } from "./_helpers.ts";
import { otherUser, readUrl, upload } from "./_http.ts";

// The same on both backends: Sealpost's URLs (fs) or the store's (s3).
for (const backend of BACKENDS) {
  Deno.test(`[${backend}] GET /submissions/blob/{user}/{hash}: 401, 403 (admin), 404, then a working URL`, async () => {
    const inst = await startOn(backend);
    try {
      const bytes = random(2000);
      const hash = sha256(bytes);
      const missing = sha256(random(5));
      const other = await otherUser(inst);
      assert.ok(stored((await upload(inst, bytes, { mime: "image/png" })).put.status));

      const none = await readUrl(inst, hash, "");
      assert.equal(none.status, 401);
      assert.equal(none.headers.get("www-authenticate"), "Bearer");
      assert.equal((await readUrl(inst, hash, "spo_bogus")).status, 401);
      // Another user's file answers exactly like a file nobody stored (no existence oracle).
      const foreign = await readUrl(inst, hash, other.token);
      const foreignAbsent = await readUrl(inst, missing, other.token);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, "blob_not_found");
      assert.equal(
        foreign.body.error.message.replace(hash, "H"),
        foreignAbsent.body.error.message.replace(missing, "H"),
      );
      assert.equal((await readUrl(inst, hash, inst.credentials.adminToken)).status, 403);
      // The other user's own namespace does not hold the first user's blob.
      assert.equal((await readUrl(inst, hash, other.token, other.id)).status, 404);
      const absent = await readUrl(inst, missing);
      assert.equal(absent.status, 404);
      assert.equal(absent.body.error.code, "blob_not_found");
      assert.equal((await readUrl(inst, "A".repeat(64))).status, 400);

      const before = Date.now();
      const read = await readUrl(inst, hash);
      assert.equal(read.status, 200);
      assert.deepEqual(Object.keys(read.body).sort(), ["expiresAtUtc", "url"]);
      const expires = Date.parse(read.body.expiresAtUtc);
      assert.ok(expires >= before + 899_000 && expires <= Date.now() + 900_000);
      const got = await fetch(read.body.url);
      assert.equal(got.status, 200);
      assert.deepEqual(await got.bytes(), bytes);
    } finally {
      await inst.close();
    }
  });

  Deno.test(`[${backend}] GET /submissions/blob: lifetimeSeconds sets the URL's lifetime; absent, the configured one`, async () => {
    const inst = await startOn(backend, { SEALPOST_BLOBS_READ_URL_LIFETIME_SECONDS: "300" });
    try {
      const bytes = random(1500);
      const hash = sha256(bytes);
      assert.ok(stored((await upload(inst, bytes, { mime: "image/png" })).put.status));
      const base = `${inst.url}/submissions/blob/${inst.credentials.userId}/${hash}`;
      const token = inst.credentials.ownerToken;

      const cases: [string, number][] = [
        ["", 300],
        ["?lifetimeSeconds=1", 1],
        ["?lifetimeSeconds=3600", 3600],
        ["?lifetimeSeconds=2592000", 2592000],
      ];
      for (const [query, asked] of cases) {
        // An S3 pre-signed URL lives 7 days at most; expiresAtUtc says so.
        const lifetime = backend === "s3" ? Math.min(asked, 604_800) : asked;
        const before = Math.floor(Date.now() / 1000);
        const read = await call(base + query, { token });
        const after = Math.ceil(Date.now() / 1000);
        assert.equal(read.status, 200, `${query}: ${JSON.stringify(read.body)}`);
        const expires = urlExpiry(read.body.url);
        assert.ok(
          expires >= before + lifetime && expires <= after + lifetime,
          `${query}: expires ${expires}, asked ${lifetime} s from ${before}`,
        );
        assert.equal(Date.parse(read.body.expiresAtUtc), expires * 1000);
        if (lifetime > 1) {
          const got = await fetch(read.body.url);
          assert.equal(got.status, 200, query);
          assert.deepEqual(await got.bytes(), bytes);
        }
      }

      for (const bad of ["0", "-5", "2592001", "1.5", "abc", "", "1e99", "0x10", "1e3", "%2010"]) {
        const res = await call(`${base}?lifetimeSeconds=${bad}`, { token });
        assert.equal(res.status, 400, `lifetimeSeconds=${bad}`);
        assert.equal(res.body.error.code, "invalid_request");
        assert.equal(res.body.error.field, "lifetimeSeconds", `lifetimeSeconds=${bad}`);
        assert.match(res.body.error.message, /1 to 2592000/);
      }
      // Still the owner's alone, and still 404 for what is not stored.
      assert.equal((await call(`${base}?lifetimeSeconds=60`)).status, 401);
      const other = await otherUser(inst);
      assert.equal((await call(`${base}?lifetimeSeconds=60`, { token: other.token })).status, 404);
      const missing = `${inst.url}/submissions/blob/${inst.credentials.userId}/${
        sha256(random(4))
      }`;
      const absent = await call(`${missing}?lifetimeSeconds=60`, { token });
      assert.equal(absent.status, 404);
      assert.equal(absent.body.error.code, "blob_not_found");

      const doc = await call(`${inst.url}/openapi.json`);
      const op = doc.body.paths["/submissions/blob/{recipientUserId}/{hash}"].get;
      const param = op.parameters.find((p: { name: string }) => p.name === "lifetimeSeconds");
      assert.equal(param.in, "query");
      assert.notEqual(param.required, true);
      assert.equal(param.schema.minimum, 1);
      assert.equal(param.schema.maximum, 2592000);
      assert.match(param.description, /read_url_lifetime_seconds/);
    } finally {
      await inst.close();
    }
  });
}

Deno.test("pre-signed GET: stored mime, ETag, Content-Length, sandboxing headers", async () => {
  const inst = await startInstance();
  try {
    const cases: [string | undefined, string, string][] = [
      ["image/png", "image/png", "inline"],
      ["text/html", "text/html", "attachment"],
      ["image/svg+xml", "image/svg+xml", "attachment"],
      [undefined, "application/octet-stream", "attachment"],
    ];
    for (const [mime, type, disposition] of cases) {
      const bytes = new TextEncoder().encode(`<script>alert(1)</script>${crypto.randomUUID()}`);
      const hash = sha256(bytes);
      await upload(inst, bytes, { mime });
      const url = (await readUrl(inst, hash)).body.url;
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), type);
      assert.equal(res.headers.get("etag"), `"${hash}"`);
      assert.equal(res.headers.get("content-length"), String(bytes.length));
      assert.equal(res.headers.get("accept-ranges"), "bytes");
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("content-security-policy"), "sandbox");
      assert.equal(res.headers.get("content-disposition"), `${disposition}; filename="${hash}"`);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer");
      assert.deepEqual(await res.bytes(), bytes);
    }
  } finally {
    await inst.close();
  }
});

Deno.test("pre-signed GET: single ranges, 416, If-None-Match, If-Range, HEAD", async () => {
  const inst = await startInstance();
  try {
    const bytes = random(100_000);
    const hash = sha256(bytes);
    await upload(inst, bytes);
    const url = (await readUrl(inst, hash)).body.url;
    const get = (headers: Record<string, string> = {}, method = "GET") =>
      fetch(url, { headers, method });

    const ranges: [string, number, number][] = [
      ["bytes=0-9", 0, 9],
      ["bytes=99990-", 99990, 99999],
      ["bytes=-5", 99995, 99999],
      ["bytes=50000-50000", 50000, 50000],
      ["bytes=99000-200000", 99000, 99999],
    ];
    for (const [header, start, end] of ranges) {
      const res = await get({ range: header });
      assert.equal(res.status, 206, header);
      assert.equal(res.headers.get("content-range"), `bytes ${start}-${end}/100000`);
      assert.equal(res.headers.get("content-length"), String(end - start + 1));
      assert.deepEqual(await res.bytes(), bytes.slice(start, end + 1), header);
    }
    const outside = await get({ range: "bytes=100000-" });
    assert.equal(outside.status, 416);
    assert.equal(outside.headers.get("content-range"), "bytes */100000");
    assert.equal((await outside.json()).error.code, "range_not_satisfiable");

    const several = await get({ range: "bytes=0-1,5-6" });
    assert.equal(several.status, 200);
    assert.equal((await several.bytes()).length, 100_000);
    const staleIfRange = await get({ range: "bytes=0-9", "if-range": '"other"' });
    assert.equal(staleIfRange.status, 200);
    await staleIfRange.body?.cancel();
    const freshIfRange = await get({ range: "bytes=0-9", "if-range": `"${hash}"` });
    assert.equal(freshIfRange.status, 206);
    await freshIfRange.body?.cancel();

    const cached = await get({ "if-none-match": `"${hash}"` });
    assert.equal(cached.status, 304);
    assert.equal(cached.headers.get("etag"), `"${hash}"`);
    await cached.body?.cancel();

    const head = await get({}, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), "100000");
    assert.equal((await head.bytes()).length, 0);
    const headRange = await get({ range: "bytes=10-19" }, "HEAD");
    assert.equal(headRange.status, 206);
    assert.equal(headRange.headers.get("content-range"), "bytes 10-19/100000");
    await headRange.body?.cancel();
  } finally {
    await inst.close();
  }
});

Deno.test("orphans: unclaimed uploads are swept; claimed ones stay; claim API", async () => {
  const inst = await startInstance({
    SEALPOST_BLOBS_ORPHAN_GRACE_SECONDS: "1",
    SEALPOST_BLOBS_SWEEP_INTERVAL_SECONDS: "1",
  });
  try {
    const kept = random(100);
    const orphan = random(100);
    await upload(inst, kept);
    await upload(inst, orphan);
    const claimUrl = `${inst.url}/owner/blobs/claim`;
    const claim = await call(claimUrl, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { hashes: [sha256(kept), "0".repeat(64)] },
    });
    assert.equal(claim.status, 200);
    assert.deepEqual(claim.body, { claimed: [sha256(kept)], missing: ["0".repeat(64)] });
    const orphanUrl = (await readUrl(inst, sha256(orphan))).body.url;

    const unauthorized = await call(claimUrl, { method: "POST", json: { hashes: [] } });
    assert.equal(unauthorized.status, 401);
    const many = Array.from({ length: 1000 }, () => sha256(random(8)));
    const full = await call(claimUrl, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { hashes: many },
    });
    assert.equal(full.status, 200);
    assert.equal(full.body.missing.length, 1000);
    for (const hashes of [[], ["xyz"], "0".repeat(64), [...many, "0".repeat(64)]]) {
      const bad = await call(claimUrl, {
        method: "POST",
        token: inst.credentials.ownerToken,
        json: { hashes },
      });
      assert.equal(bad.status, 400, JSON.stringify(hashes).slice(0, 40));
    }

    const deadline = Date.now() + 10_000;
    while ((await readUrl(inst, sha256(orphan))).status !== 404) {
      assert.ok(Date.now() < deadline, "the orphan was not swept within 10 s");
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(
      (await fetch(orphanUrl).then(async (r) => (await r.body?.cancel(), r))).status,
      404,
    );
    const read = await readUrl(inst, sha256(kept));
    assert.equal(read.status, 200);
    assert.deepEqual(await (await fetch(read.body.url)).bytes(), kept);

    // Release API: only the claimant's claim goes; the last one hands the file to the sweep.
    const releaseUrl = `${inst.url}/owner/blobs/release`;
    const release = (json: unknown) =>
      call(releaseUrl, { method: "POST", token: inst.credentials.ownerToken, json });
    const badClaimant = await release({ hashes: [sha256(kept)], claimant: "two words" });
    assert.equal(badClaimant.status, 400);
    assert.equal(badClaimant.body.error.field, "claimant");
    assert.deepEqual((await release({ hashes: [sha256(kept)], claimant: "f1/r9" })).body, {
      unclaimed: [],
    });
    assert.deepEqual((await release({ hashes: [sha256(kept)] })).body, {
      unclaimed: [sha256(kept)],
    });
    while ((await readUrl(inst, sha256(kept))).status !== 404) {
      assert.ok(Date.now() < deadline + 10_000, "the released file was not swept within 10 s");
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await inst.close();
  }
});

Deno.test("leftover temporary files are removed when the server starts", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-test-" });
  try {
    await Deno.mkdir(join(dir, "blobs", "tmp"), { recursive: true });
    await Deno.writeTextFile(join(dir, "blobs", "tmp", "crashed.part"), "half an upload");
    const inst = await startInstance({}, dir);
    try {
      assert.deepEqual(await Array.fromAsync(Deno.readDir(join(dir, "blobs", "tmp"))), []);
    } finally {
      await inst.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
