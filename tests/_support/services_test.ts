import assert from "node:assert/strict";
import { exportLines } from "./services/main.ts";
import { pebbleRoots, pebbleUp } from "./services/pebble.ts";
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
  assert.deepEqual(
    exportLines(null, null, {
      directoryUrl: "https://127.0.0.1:14000/dir",
      managementUrl: "https://127.0.0.1:15000",
      caFile: "/tmp/ca.crt",
      httpPort: 5002,
    }),
    [
      "export PEBBLE_DIRECTORY_URL='https://127.0.0.1:14000/dir'",
      "export PEBBLE_CA_FILE='/tmp/ca.crt'",
      "export PEBBLE_HTTP_PORT='5002'",
      "export PEBBLE_MANAGEMENT_URL='https://127.0.0.1:15000'",
    ],
  );
});

Deno.test("services up: pebble's directory answers over https on loopback; a second up reuses it", async () => {
  const acme = await pebbleUp();
  assert.match(acme.directoryUrl, /^https:\/\/127\.0\.0\.1:\d+\/dir$/);
  const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(acme.caFile)] });
  try {
    const directory = await (await fetch(acme.directoryUrl, { client })).json();
    assert.match(directory.newOrder, /^https:\/\/127\.0\.0\.1:/);
  } finally {
    client.close();
  }
  const [root, intermediate] = await pebbleRoots(acme);
  assert.match(root, /^-----BEGIN CERTIFICATE-----/);
  assert.match(intermediate, /^-----BEGIN CERTIFICATE-----/);
  const { timings: _, ...known } = acme;
  assert.deepEqual(await pebbleUp(), known);
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
