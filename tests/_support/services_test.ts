import assert from "node:assert/strict";
import { exportLines } from "./services/main.ts";
import { postgresUp } from "./services/postgres.ts";
import { radosgwUp } from "./services/radosgw.ts";

Deno.test("services env: shell export lines, values quoted", () => {
  const lines = exportLines(
    {
      endpoint: "http://127.0.0.1:7480",
      region: "us-east-1",
      bucket: "sealpost",
      accessKeyId: "AK",
      secretAccessKey: "it's",
    },
    {
      url: "postgres://u:p@127.0.0.1:5432/d",
      host: "127.0.0.1",
      port: 5432,
      user: "u",
      password: "p",
      database: "d",
    },
  );
  assert.ok(lines.includes("export S3_ENDPOINT='http://127.0.0.1:7480'"));
  assert.ok(lines.includes(`export AWS_SECRET_ACCESS_KEY='it'\\''s'`));
  assert.ok(lines.includes("export POSTGRES_URL='postgres://u:p@127.0.0.1:5432/d'"));
  assert.ok(lines.includes("export PGPORT='5432'"));
  assert.deepEqual(exportLines(null, null), []);
});

Deno.test("services up: radosgw and PostgreSQL answer on loopback; a second up reuses them", async () => {
  const [s3, pg] = [await radosgwUp(), await postgresUp()];
  assert.match(s3.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
  const listing = await fetch(s3.endpoint);
  assert.equal(listing.status, 200);
  await listing.body?.cancel();
  assert.match(pg.url, /^postgres:\/\/sealpost:[0-9a-f]+@127\.0\.0\.1:\d+\/sealpost_test$/);
  const psql = await new Deno.Command("psql", {
    args: [pg.url, "-tAc", "select current_user || ' ' || current_database()"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(psql.stdout).trim(), "sealpost sealpost_test");
  const again = [await radosgwUp(), await postgresUp()];
  assert.deepEqual(
    again,
    [
      { ...s3, timings: undefined },
      { ...pg, timings: undefined },
    ].map(({ timings: _, ...rest }) => rest),
  );
});
