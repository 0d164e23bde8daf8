/**
 * The S3 store: its pre-signed URLs checked against an independent AWS Signature V4
 * computation, its credentials, and its HEAD, list and delete against a real radosgw.
 */
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { join } from "node:path";
import { recordedMime } from "../../src/blobs/direct.ts";
import { ConfigError } from "../../src/config/index.ts";
import { UpstreamFailed } from "../../src/errors/index.ts";
import {
  amzDate,
  readS3Credentials,
  S3BlobStore,
  type S3Settings,
} from "../../src/blobs/s3_store.ts";
import { s3Client } from "../_support/services/radosgw.ts";
import { random, sha256 } from "./_helpers.ts";
import { radosgw } from "./_backends.ts";

const SETTINGS: S3Settings = {
  endpoint: "http://127.0.0.1:7480/",
  region: "eu-west-3",
  bucket: "files",
  access_key_id_env: "AWS_ACCESS_KEY_ID",
  access_key_id_file: "",
  secret_access_key_env: "AWS_SECRET_ACCESS_KEY",
  secret_access_key_file: "",
};
const CREDENTIALS = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG" };
const KEY = { userId: "u1", hash: sha256(new TextEncoder().encode("hello")) };
const NOW = Date.UTC(2026, 10, 23, 10, 15, 0) / 1000;

const hmac = (key: string | Buffer, data: string) =>
  createHmac("sha256", key).update(data).digest();
const enc = (v: string) =>
  encodeURIComponent(v).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** The SigV4 query signature of `url`, computed from the specification, not by aws4fetch. */
function expectedSignature(method: string, url: URL, headers: Record<string, string>): string {
  const params = [...url.searchParams].filter(([k]) => k !== "X-Amz-Signature")
    .map(([k, v]) => `${enc(k)}=${enc(v)}`).sort().join("&");
  const all: Record<string, string> = { host: url.host, ...headers };
  const names = Object.keys(all).sort();
  const canonical = [
    method,
    url.pathname,
    params,
    ...names.map((n) => `${n}:${all[n]}`),
    "",
    names.join(";"),
    headers["x-amz-content-sha256"] ?? "UNSIGNED-PAYLOAD",
  ].join("\n");
  const day = amzDate(NOW).slice(0, 8);
  const scope = `${day}/eu-west-3/s3/aws4_request`;
  const toSign = [
    "AWS4-HMAC-SHA256",
    amzDate(NOW),
    scope,
    createHash("sha256").update(canonical).digest("hex"),
  ].join("\n");
  let key = hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day);
  for (const part of ["eu-west-3", "s3", "aws4_request"]) key = hmac(key, part);
  return hmac(key, toSign).toString("hex");
}

Deno.test("amzDate: the SigV4 time stamp", () => {
  assert.equal(amzDate(NOW), "20261123T101500Z");
});

Deno.test("presignPut signs Content-Type, Content-Length and the declared hash", async () => {
  const store = new S3BlobStore(SETTINGS, CREDENTIALS);
  const url = new URL(
    await store.presignPut(KEY, { mime: "image/png", sizeBytes: 5 }, {
      now: NOW,
      expires: NOW + 900,
    }),
  );
  assert.equal(`${url.origin}${url.pathname}`, `http://127.0.0.1:7480/files/u1/${KEY.hash}`);
  const q = Object.fromEntries(url.searchParams);
  assert.equal(q["X-Amz-Algorithm"], "AWS4-HMAC-SHA256");
  assert.equal(q["X-Amz-Credential"], "AKIDEXAMPLE/20261123/eu-west-3/s3/aws4_request");
  assert.equal(q["X-Amz-Date"], "20261123T101500Z");
  assert.equal(q["X-Amz-Expires"], "900");
  assert.equal(q["X-Amz-SignedHeaders"], "content-length;content-type;host;x-amz-content-sha256");
  assert.equal(
    q["X-Amz-Signature"],
    expectedSignature("PUT", url, {
      "content-length": "5",
      "content-type": "image/png",
      "x-amz-content-sha256": KEY.hash,
    }),
  );
  assert.ok(!url.href.includes(CREDENTIALS.secretAccessKey));

  // Nothing declared but the hash: only the hash is bound.
  const bare = new URL(
    await store.presignPut(KEY, { mime: null, sizeBytes: null }, { now: NOW, expires: NOW + 60 }),
  );
  assert.equal(bare.searchParams.get("X-Amz-SignedHeaders"), "host;x-amz-content-sha256");
  assert.equal(bare.searchParams.get("X-Amz-Expires"), "60");
  assert.equal(
    bare.searchParams.get("X-Amz-Signature"),
    expectedSignature("PUT", bare, { "x-amz-content-sha256": KEY.hash }),
  );
});

Deno.test("presignGet signs the response type and disposition overrides", async () => {
  const store = new S3BlobStore(SETTINGS, CREDENTIALS);
  const url = new URL(
    await store.presignGet(
      KEY,
      { contentType: "text/plain; charset=utf-8", contentDisposition: 'attachment; filename="x"' },
      { now: NOW, expires: NOW + 604800 },
    ),
  );
  assert.equal(url.searchParams.get("response-content-type"), "text/plain; charset=utf-8");
  assert.equal(url.searchParams.get("response-content-disposition"), 'attachment; filename="x"');
  assert.equal(url.searchParams.get("X-Amz-Expires"), "604800");
  assert.equal(url.searchParams.get("X-Amz-SignedHeaders"), "host");
  assert.equal(url.searchParams.get("X-Amz-Signature"), expectedSignature("GET", url, {}));
});

Deno.test("object URLs come from valid keys only", () => {
  const store = new S3BlobStore(SETTINGS, CREDENTIALS);
  for (const key of [{ userId: "..", hash: KEY.hash }, { userId: "u1", hash: "../x" }]) {
    assert.throws(() => store.objectUrl(key), TypeError);
  }
});

Deno.test("readS3Credentials: a named file wins, else the variable; errors name no value", async () => {
  const dir = await Deno.makeTempDir();
  const names = { id: "S3_STORE_TEST_ID", secret: "S3_STORE_TEST_SECRET" };
  try {
    await Deno.writeTextFile(join(dir, "secret"), "from-file\n");
    Deno.env.set(names.id, "id-from-env");
    Deno.env.set(names.secret, "secret-from-env");
    const settings = {
      ...SETTINGS,
      access_key_id_env: names.id,
      secret_access_key_env: names.secret,
    };
    assert.deepEqual(await readS3Credentials(settings), {
      accessKeyId: "id-from-env",
      secretAccessKey: "secret-from-env",
    });
    assert.deepEqual(
      await readS3Credentials({ ...settings, secret_access_key_file: join(dir, "secret") }),
      { accessKeyId: "id-from-env", secretAccessKey: "from-file" },
    );
    Deno.env.delete(names.secret);
    await assert.rejects(readS3Credentials(settings), (err: Error) => {
      assert.match(err.message, new RegExp(names.secret));
      assert.ok(!err.message.includes("id-from-env"));
      return true;
    });
    await Deno.writeTextFile(join(dir, "empty"), "\n");
    await assert.rejects(
      readS3Credentials({ ...settings, secret_access_key_file: join(dir, "empty") }),
      /is empty/,
    );
    await assert.rejects(
      readS3Credentials({ ...settings, secret_access_key_file: join(dir, "absent") }),
      (err: Error) => err instanceof ConfigError && /cannot be read/.test(err.message),
    );
  } finally {
    Deno.env.delete(names.id);
    Deno.env.delete(names.secret);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("recordedMime: the stored type, none for the generic octet streams", () => {
  assert.equal(recordedMime("image/png"), "image/png");
  assert.equal(recordedMime("text/plain; charset=utf-8"), "text/plain; charset=utf-8");
  assert.equal(recordedMime(null), null);
  assert.equal(recordedMime("binary/octet-stream"), null);
  assert.equal(recordedMime("Application/Octet-Stream"), null);
  assert.equal(recordedMime("not a type"), null);
});

Deno.test("[s3] against radosgw: expiry, stat, list skips foreign objects, remove", async () => {
  const gateway = await radosgw();
  const bucket = `t-store-${crypto.randomUUID().slice(0, 8)}`;
  const env = { ...gateway, bucket };
  const client = s3Client(env);
  assert.equal((await client.fetch(`${env.endpoint}/${bucket}`, { method: "PUT" })).status, 200);
  const store = new S3BlobStore(
    { ...SETTINGS, endpoint: env.endpoint, bucket, region: env.region },
    env,
  );
  const bytes = random(100);
  const key = { userId: "u1", hash: sha256(bytes) };
  const headers = { "content-type": "image/png", "x-amz-content-sha256": key.hash };
  try {
    const now = Math.floor(Date.now() / 1000);
    const expired = await store.presignPut(key, { mime: "image/png", sizeBytes: 100 }, {
      now: now - 120,
      expires: now - 60,
    });
    const refused = await fetch(expired, { method: "PUT", body: bytes, headers });
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /AccessDenied|RequestExpired/);
    assert.equal(await store.stat(key), null);

    const url = await store.presignPut(key, { mime: "image/png", sizeBytes: 100 }, {
      now,
      expires: now + 60,
    });
    const put = await fetch(url, { method: "PUT", body: bytes, headers });
    await put.body?.cancel();
    assert.equal(put.status, 200);
    const stat = await store.stat(key);
    assert.equal(stat?.sizeBytes, 100);
    assert.equal(stat?.contentType, "image/png");
    assert.ok(Math.abs(stat!.lastModified.getTime() - Date.now()) < 60_000);

    await (await client.fetch(`${env.endpoint}/${bucket}/not-a-blob/x`, {
      method: "PUT",
      body: "x",
    })).body?.cancel();
    const listed = await Array.fromAsync(store.list());
    assert.deepEqual(listed.map((e) => e.key), [key]);
    assert.equal(listed[0].object.sizeBytes, 100);

    await store.remove(key);
    await store.remove(key);
    assert.equal(await store.stat(key), null);
  } finally {
    await (await client.fetch(`${env.endpoint}/${bucket}/not-a-blob/x`, { method: "DELETE" }))
      .body?.cancel();
    await (await client.fetch(`${env.endpoint}/${bucket}`, { method: "DELETE" })).body?.cancel();
  }
});

Deno.test("[s3] a store that cannot be reached or refuses the keys is a 502 blob_store_error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  listener.close();
  const gateway = await radosgw();
  const stores = [
    new S3BlobStore({ ...SETTINGS, endpoint: closed }, CREDENTIALS),
    new S3BlobStore(
      { ...SETTINGS, endpoint: gateway.endpoint, bucket: gateway.bucket, region: gateway.region },
      { accessKeyId: gateway.accessKeyId, secretAccessKey: "not-the-secret" },
    ),
  ];
  for (const store of stores) {
    for (
      const attempt of [
        () => store.stat(KEY),
        () => store.remove(KEY),
        () => Array.fromAsync(store.list()),
      ]
    ) {
      await assert.rejects(attempt(), (err: UpstreamFailed) => {
        assert.ok(err instanceof UpstreamFailed, String(err));
        assert.equal(err.upstreamStatus, undefined, "answered as a 502 of its own");
        assert.equal(err.code, "blob_store_error");
        assert.ok(!err.message.includes("not-the-secret"));
        return true;
      });
    }
  }
});
