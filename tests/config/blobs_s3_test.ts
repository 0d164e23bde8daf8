import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../src/config/index.ts";

Deno.test("blobs.backend: fs by default, with empty [blobs.s3] settings", async () => {
  const config = await loadConfig({ env: {} });
  assert.equal(config.blobs.backend, "fs");
  assert.deepEqual(config.blobs.s3, {
    endpoint: "",
    region: "us-east-1",
    bucket: "",
    access_key_id_env: "AWS_ACCESS_KEY_ID",
    access_key_id_file: "",
    secret_access_key_env: "AWS_SECRET_ACCESS_KEY",
    secret_access_key_file: "",
  });
});

Deno.test("blobs.backend = s3: from a file or the environment", async () => {
  const file = await Deno.makeTempFile({ suffix: ".toml" });
  try {
    await Deno.writeTextFile(
      file,
      '[blobs]\nbackend = "s3"\n[blobs.s3]\nendpoint = "http://127.0.0.1:7480"\n' +
        'bucket = "sealpost-files"\nregion = "eu-west-3"\nsecret_access_key_file = "/run/s3"\n',
    );
    const fromFile = await loadConfig({ file, env: {} });
    assert.equal(fromFile.blobs.backend, "s3");
    assert.equal(fromFile.blobs.s3.endpoint, "http://127.0.0.1:7480");
    assert.equal(fromFile.blobs.s3.bucket, "sealpost-files");
    assert.equal(fromFile.blobs.s3.region, "eu-west-3");
    assert.equal(fromFile.blobs.s3.secret_access_key_file, "/run/s3");
    const fromEnv = await loadConfig({
      env: {
        SEALPOST_BLOBS_BACKEND: "s3",
        SEALPOST_BLOBS_S3_ENDPOINT: "https://s3.example",
        SEALPOST_BLOBS_S3_BUCKET: "files",
        SEALPOST_BLOBS_S3_ACCESS_KEY_ID_ENV: "MY_KEY_ID",
      },
    });
    assert.equal(fromEnv.blobs.s3.endpoint, "https://s3.example");
    assert.equal(fromEnv.blobs.s3.access_key_id_env, "MY_KEY_ID");
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("blobs.backend = s3 needs an endpoint and a bucket; bad values name their key", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ SEALPOST_BLOBS_BACKEND: "s3" }, /blobs\.s3.*endpoint and blobs\.s3\.bucket/],
    [
      { SEALPOST_BLOBS_BACKEND: "s3", SEALPOST_BLOBS_S3_ENDPOINT: "http://127.0.0.1:1" },
      /blobs\.s3/,
    ],
    [{ SEALPOST_BLOBS_BACKEND: "gcs" }, /blobs\.backend/],
    [{ SEALPOST_BLOBS_S3_ENDPOINT: "ftp://store" }, /blobs\.s3\.endpoint/],
    [{ SEALPOST_BLOBS_S3_BUCKET: "Not_A_Bucket" }, /blobs\.s3\.bucket/],
    [{ SEALPOST_BLOBS_S3_REGION: "" }, /blobs\.s3\.region/],
  ];
  for (const [env, message] of cases) {
    await assert.rejects(loadConfig({ env }), (err: Error) => {
      assert.ok(err instanceof ConfigError, err.message);
      assert.match(err.message, message);
      return true;
    });
  }
});
