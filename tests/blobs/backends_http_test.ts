/**
 * The upload flow over real HTTP on both blob backends: `fs` (Sealpost's own URLs) and `s3`
 * (a Ceph radosgw on loopback: the store's URLs, the store's own refusals).
 */
import assert from "node:assert/strict";
import { s3Client } from "../_support/services/radosgw.ts";
import { call } from "../_support/server.ts";
import { type Backend, BACKENDS, startOn } from "./_backends.ts";
import { random, sha256 } from "./_helpers.ts";
import { readUrl, slot } from "./_http.ts";

const CAP = 52_428_800;

/** PUTs `body` the way Sealpost's SDK and form page do: Content-Type and the declared hash. */
async function put(
  url: string,
  body: Uint8Array<ArrayBuffer>,
  headers: { contentType?: string | null; hash?: string },
): Promise<{ status: number; code: string }> {
  const sent: Record<string, string> = {};
  if (headers.contentType) sent["content-type"] = headers.contentType;
  if (headers.hash) sent["x-amz-content-sha256"] = headers.hash;
  const res = await fetch(url, { method: "PUT", body, headers: sent });
  const text = await res.text();
  // Sealpost answers JSON errors; an S3 store answers XML with a <Code>.
  const code = text.startsWith("{")
    ? JSON.parse(text).error?.code ?? ""
    : /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? "";
  return { status: res.status, code };
}

/** What each backend answers to a refused PUT: [status, code]. */
const REFUSALS: Record<Backend, Record<string, [number, string]>> = {
  fs: {
    type: [403, "content_type_mismatch"],
    bytes: [400, "hash_mismatch"],
    longer: [413, "file_too_large"],
    shorter: [400, "hash_mismatch"],
  },
  s3: {
    type: [403, "SignatureDoesNotMatch"],
    bytes: [400, "XAmzContentSHA256Mismatch"],
    longer: [403, "SignatureDoesNotMatch"],
    shorter: [403, "SignatureDoesNotMatch"],
  },
};

for (const backend of BACKENDS) {
  Deno.test(`[${backend}] upload-slot: the URL, every 400, the quota decided at slot time`, async () => {
    const inst = await startOn(backend, { SEALPOST_BLOBS_QUOTA_BYTES_PER_USER: "1000" });
    const userId = inst.credentials.userId;
    const hash = sha256(random(10));
    try {
      const res = await slot(inst, {
        recipientUserId: userId,
        hash,
        mime: "image/png",
        sizeBytes: 10,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body).sort(), ["expiresAtUtc", "key", "url"]);
      assert.equal(res.body.key, `${userId}/${hash}`);
      const base = inst.s3 ? `${inst.s3.endpoint}/${inst.s3.bucket}` : `${inst.url}/blobs`;
      assert.ok(res.body.url.startsWith(`${base}/${userId}/${hash}?`), res.body.url);
      const expires = Date.parse(res.body.expiresAtUtc);
      assert.ok(expires > Date.now() + 890_000 && expires <= Date.now() + 900_000);
      if (inst.s3) {
        const signed = new URL(res.body.url).searchParams.get("X-Amz-SignedHeaders");
        assert.equal(signed, "content-length;content-type;host;x-amz-content-sha256");
      }
      for (
        const [body, status, code, field] of [
          [{ recipientUserId: userId, hash, sizeBytes: 0 }, 400, "invalid_request", "sizeBytes"],
          [
            { recipientUserId: userId, hash, sizeBytes: CAP + 1 },
            400,
            "invalid_request",
            "sizeBytes",
          ],
          [{ recipientUserId: userId, hash: "ab" }, 400, "invalid_request", "hash"],
          [{ recipientUserId: "nobody", hash }, 400, "unknown_recipient", "recipientUserId"],
          [{ recipientUserId: userId, hash, sizeBytes: 1001 }, 413, "quota_exceeded", undefined],
        ] as const
      ) {
        const refused = await slot(inst, body);
        assert.equal(refused.status, status, JSON.stringify(body));
        assert.equal(refused.body.error.code, code);
        assert.equal(refused.body.error.field, field);
      }
      // The byte routes exist only where the bytes pass through Sealpost.
      const doc = await call(`${inst.url}/openapi.json`);
      assert.equal("/blobs/{userId}/{hash}" in doc.body.paths, backend === "fs");
      const own = await call(`${inst.url}/blobs/${userId}/${hash}?expires=1&max=1&sig=x`, {
        method: "PUT",
        body: "x",
      });
      assert.equal(own.status, backend === "fs" ? 403 : 404);
    } finally {
      await inst.close();
    }
  });

  Deno.test(`[${backend}] PUT and read back; the store refuses a wrong type, bytes or length`, async () => {
    const inst = await startOn(backend);
    const userId = inst.credentials.userId;
    const stored = async (hash: string) => (await readUrl(inst, hash)).status === 200;
    try {
      const image = random(2000);
      const granted = await slot(inst, {
        recipientUserId: userId,
        hash: sha256(image),
        mime: "image/png",
        sizeBytes: image.length,
      });
      const url = granted.body.url;
      const hash = sha256(image);
      const wrongBytes = image.slice();
      wrongBytes[1999] ^= 1;
      const longer = new Uint8Array([...image, 0]);
      const refusals: [string, Uint8Array<ArrayBuffer>, string][] = [
        ["type", image, "text/html"],
        ["bytes", wrongBytes, "image/png"],
        ["longer", longer, "image/png"],
        ["shorter", image.slice(0, 1999), "image/png"],
      ];
      for (const [what, body, contentType] of refusals) {
        const res = await put(url, body, { contentType, hash });
        assert.deepEqual([res.status, res.code], REFUSALS[backend][what], what);
        assert.equal(await stored(hash), false, what);
      }
      if (backend === "s3") {
        // The hash header is signed: without it (the specification's minimal PUT) the store
        // cannot check the bytes, and refuses.
        const bare = await put(url, image, { contentType: "image/png" });
        assert.deepEqual([bare.status, bare.code], [403, "SignatureDoesNotMatch"]);
        assert.equal(await stored(hash), false);
      }
      const ok = await put(url, image, { contentType: "image/png", hash });
      assert.ok(ok.status >= 200 && ok.status < 300, JSON.stringify(ok));
      const again = await put(url, image, { contentType: "image/png", hash });
      assert.ok(again.status >= 200 && again.status < 300, "idempotent");

      const read = await readUrl(inst, hash);
      assert.equal(read.status, 200);
      if (inst.s3) assert.ok(read.body.url.startsWith(inst.s3.endpoint));
      const got = await fetch(read.body.url);
      assert.equal(got.status, 200);
      assert.equal(got.headers.get("content-type"), "image/png");
      assert.equal(got.headers.get("content-disposition"), `inline; filename="${hash}"`);
      assert.equal(sha256(await got.bytes()), hash);

      // No mime declared, no size: stored as a download (application/octet-stream).
      const doc = random(300);
      const unsized = await slot(inst, { recipientUserId: userId, hash: sha256(doc) });
      const sent = await put(unsized.body.url, doc, { hash: sha256(doc) });
      assert.ok(sent.status >= 200 && sent.status < 300, JSON.stringify(sent));
      const plain = await fetch((await readUrl(inst, sha256(doc))).body.url);
      assert.equal(plain.headers.get("content-type"), "application/octet-stream");
      assert.equal(
        plain.headers.get("content-disposition"),
        `attachment; filename="${sha256(doc)}"`,
      );
      assert.deepEqual(await plain.bytes(), doc);
    } finally {
      await inst.close();
    }
  });

  Deno.test(`[${backend}] claims, quota and the orphan sweep`, async () => {
    const inst = await startOn(backend, {
      SEALPOST_BLOBS_ORPHAN_GRACE_SECONDS: "0",
      SEALPOST_BLOBS_QUOTA_BYTES_PER_USER: "1500",
    });
    const userId = inst.credentials.userId;
    const claim = (hashes: string[]) =>
      call(`${inst.url}/owner/blobs/claim`, {
        method: "POST",
        token: inst.credentials.ownerToken,
        json: { hashes },
      });
    const send = async (bytes: Uint8Array<ArrayBuffer>) => {
      const granted = await slot(inst, { recipientUserId: userId, hash: sha256(bytes) });
      return await put(granted.body.url, bytes, { hash: sha256(bytes) });
    };
    try {
      const kept = random(1000);
      const orphan = random(400);
      const never = random(300);
      for (const bytes of [kept, orphan]) assert.ok((await send(bytes)).status < 300);
      const claimed = await claim([sha256(kept), "0".repeat(64)]);
      assert.equal(claimed.status, 200);
      assert.deepEqual(claimed.body, { claimed: [sha256(kept)], missing: ["0".repeat(64)] });
      assert.equal((await readUrl(inst, sha256(orphan))).status, 200);
      // 1400 of 1500 bytes recorded: 300 more do not fit. The fs PUT says so; an S3 object
      // is stored but never recorded, so a claim finds it missing.
      const over = await send(never);
      if (backend === "fs") assert.deepEqual([over.status, over.code], [413, "quota_exceeded"]);
      else assert.ok(over.status < 300);
      assert.deepEqual((await claim([sha256(never)])).body.missing, [sha256(never)]);

      const swept = await inst.server.blobs!.sweep();
      assert.equal(swept.deleted, backend === "fs" ? 1 : 2);
      assert.equal(swept.bytes, backend === "fs" ? 400 : 700);
      assert.equal((await readUrl(inst, sha256(orphan))).status, 404);
      assert.equal((await readUrl(inst, sha256(never))).status, 404);
      const keptRead = await fetch((await readUrl(inst, sha256(kept))).body.url);
      assert.equal(sha256(await keptRead.bytes()), sha256(kept));
    } finally {
      await inst.close();
    }
  });
}

Deno.test("[s3] the bucket's CORS lets a page of any origin PUT with the signed headers", async () => {
  const inst = await startOn("s3");
  try {
    const bytes = random(10);
    const granted = await slot(inst, {
      recipientUserId: inst.credentials.userId,
      hash: sha256(bytes),
      mime: "image/png",
    });
    const preflight = await fetch(granted.body.url, {
      method: "OPTIONS",
      headers: {
        origin: "https://forms.example",
        "access-control-request-method": "PUT",
        "access-control-request-headers": "content-type,x-amz-content-sha256",
      },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 200);
    assert.ok(
      ["*", "https://forms.example"].includes(
        preflight.headers.get("access-control-allow-origin")!,
      ),
    );
    assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /PUT/);
    assert.match(
      (preflight.headers.get("access-control-allow-headers") ?? "").toLowerCase(),
      /x-amz-content-sha256/,
    );
  } finally {
    await inst.close();
  }
});

Deno.test("[s3] a slot without sizeBytes: an empty or over-50 MB object is deleted, never recorded", async () => {
  const inst = await startOn("s3");
  const userId = inst.credentials.userId;
  try {
    const empty = new Uint8Array(0);
    const huge = new Uint8Array(CAP + 1);
    huge[CAP] = 1;
    const objects = await Array.fromAsync([empty, huge], async (bytes) => {
      const hash = sha256(bytes);
      const granted = await slot(inst, { recipientUserId: userId, hash });
      const sent = await put(granted.body.url, bytes, { hash });
      // The store cannot know the cap: it takes the bytes the URL signed the hash of.
      assert.equal(sent.status, 200, JSON.stringify(sent));
      return { hash, url: `${inst.s3!.endpoint}/${inst.s3!.bucket}/${userId}/${hash}` };
    });
    const claim = await call(`${inst.url}/owner/blobs/claim`, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { hashes: objects.map((o) => o.hash) },
    });
    assert.deepEqual(claim.body, { claimed: [], missing: objects.map((o) => o.hash) });
    for (const { hash } of objects) assert.equal((await readUrl(inst, hash)).status, 404);
    const listing = await s3Client(inst.s3!).fetch(`${inst.s3!.endpoint}/${inst.s3!.bucket}`);
    assert.doesNotMatch(await listing.text(), /<Contents>/, "both objects deleted");
  } finally {
    await inst.close();
  }
});
