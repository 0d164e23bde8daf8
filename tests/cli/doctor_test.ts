/**
 * `sealpost doctor` against real instances: all green on a fresh one; a wrong base_url and a
 * loose file mode each fail with their line and exit 1; https through a TLS front whose
 * certificate comes from a test CA (DENO_CERT); the S3 bucket and PostgreSQL of an instance on
 * the test services. The checks' verdicts on the edges (clock skew, days left, limits) as units.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sealpost } from "../_support/cli.ts";
import { startInstance, type TestInstance } from "../_support/server.ts";
import { clockCheck, type HealthProbe } from "../../src/doctor/remote.ts";
import { DISK_FAIL_BYTES, NOFILE_WARN, openFilesCheck } from "../../src/doctor/host.ts";
import { FAIL_DAYS, tlsCheck, WARN_DAYS } from "../../src/doctor/tls.ts";
import { postgresUp } from "../_support/services/postgres.ts";
import { startOn } from "../blobs/_backends.ts";
import { freshPg } from "../store/contract/_pg.ts";

/** Doctor's lines by check name: `[status label, detail]`. */
function byName(stdout: string): Map<string, string> {
  const lines = stdout.trim().split("\n");
  return new Map(lines.map((line) => {
    const [, , name] = /^(\S+)\s+(\S+)/.exec(line)!.map(String);
    const label = line.slice(0, 4).trim();
    return [name, label];
  }));
}

async function doctor(inst: TestInstance, args: string[] = [], env: Record<string, string> = {}) {
  return await sealpost(
    ["doctor", "--url", inst.url, "--data", inst.config.data_dir, ...args],
    env,
  );
}

Deno.test("doctor: a fresh instance is all green, one line per check, exit 0", async () => {
  const inst = await startInstance();
  try {
    const out = await doctor(inst);
    assert.equal(out.code, 0, out.stdout + out.stderr);
    const lines = byName(out.stdout);
    for (
      const name of [
        "base_url_reachable",
        "base_url_matches",
        "clock",
        "storage",
        "data_dir_modes",
        "open_files",
        "disk_free",
      ]
    ) assert.equal(lines.get(name), "ok", `${name}: ${out.stdout}`);
    // Loopback over plain http has no certificate to check.
    assert.equal(lines.get("tls_certificate"), "skip");
    assert.match(out.stdout, /the server's limit is \d+ open files/);

    const json = await doctor(inst, ["--json"]);
    assert.equal(json.code, 0);
    const report = JSON.parse(json.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.checks.map((c: { name: string }) => c.name),
      [...lines.keys()],
    );
  } finally {
    await inst.close();
  }
});

Deno.test("doctor: a base_url the instance does not call itself fails its line, exit 1", async () => {
  const inst = await startInstance({ SEALPOST_BASE_URL: "https://forms.example.org" });
  try {
    const out = await doctor(inst);
    assert.equal(out.code, 1, out.stdout);
    assert.match(
      out.stdout,
      /^FAIL {2}base_url_matches\s+the instance's base_url is https:\/\/forms\.example\.org, but it was reached at http:\/\/127\.0\.0\.1:\d+/m,
    );
    // Unreachable altogether: the first line fails, and the rest say why they cannot run.
    const gone = await sealpost(["doctor", "--url", "http://127.0.0.1:9", "--json"], {
      SEALPOST_DATA_DIR: inst.config.data_dir,
    });
    assert.equal(gone.code, 1);
    const checks = JSON.parse(gone.stdout).checks;
    assert.equal(checks[0].name, "base_url_reachable");
    assert.equal(checks[0].status, "fail");
    assert.match(checks[0].detail, /http:\/\/127\.0\.0\.1:9\/healthz did not answer/);
  } finally {
    await inst.close();
  }
});

Deno.test("doctor: a secret readable by others fails data_dir_modes, exit 1", async () => {
  const inst = await startInstance();
  try {
    await Deno.chmod(join(inst.config.data_dir, "relay.secret"), 0o644);
    await Deno.chmod(inst.config.data_dir, 0o755);
    const out = await doctor(inst);
    assert.equal(out.code, 1, out.stdout);
    assert.match(
      out.stdout,
      /^FAIL {2}data_dir_modes\s+.*\.\/ is 755 \(want 700\), relay\.secret is 644 \(want 600\); fix with: chmod -R go-rwx /m,
    );
    // Everything else stays green.
    const failed = [...byName(out.stdout)].filter(([, label]) => label === "FAIL");
    assert.deepEqual(failed.map(([name]) => name), ["data_dir_modes"]);
  } finally {
    await inst.close();
  }
});

Deno.test("doctor: a refused admin token fails base_url_matches; none at all skips it", async () => {
  const inst = await startInstance();
  try {
    const refused = await doctor(inst, ["--token", "spa_nottherightone"]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stdout,
      /^FAIL {2}base_url_matches\s+the instance refused the admin token/m,
    );
    const none = await sealpost(["doctor", "--url", inst.url], {
      SEALPOST_DATA_DIR: "/nonexistent/sealpost",
    });
    assert.equal(none.code, 0, none.stdout);
    const lines = byName(none.stdout);
    assert.equal(lines.get("base_url_matches"), "skip");
    assert.match(none.stdout, /this doctor's own limit/);
    // Beside the server without a token: its limit from the pid in its data dir's lock file.
    const beside = await doctor(inst, [], { SEALPOST_TOKEN: "" });
    assert.equal(beside.code, 0, beside.stdout);
    assert.match(
      beside.stdout,
      new RegExp(
        `^ok {4}open_files\\s+the server's limit \\(pid ${Deno.pid}, from serve\\.lock\\)`,
        "m",
      ),
    );
    assert.match(
      none.stdout,
      /^skip {2}data_dir_modes\s+\/nonexistent\/sealpost is not on this machine/m,
    );
  } finally {
    await inst.close();
  }
});

/** A test CA and a leaf for `localhost` and 127.0.0.1 valid `days`, made with openssl. */
async function testCertificates(dir: string, days: number) {
  const run = async (args: string[]) => {
    const out = await new Deno.Command("openssl", { args, cwd: dir, stderr: "piped" }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
    "-days",
    "30",
    "-subj",
    "/CN=doctor test CA",
  ]);
  await run(["req", ...ec, "-keyout", "key.pem", "-out", "leaf.csr", "-subj", "/CN=localhost"]);
  await Deno.writeTextFile(
    join(dir, "ext.cnf"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
  );
  await run([
    "x509",
    "-req",
    "-in",
    "leaf.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "cert.pem",
    "-days",
    String(days),
    "-extfile",
    "ext.cnf",
  ]);
  return { ca: join(dir, "ca.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
}

Deno.test("doctor: https base_url: days left of the certificate presented, trust checked", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-doctor-tls-" });
  const files = await testCertificates(dir, 60);
  let upstream = "";
  // A TLS front passing every request to the instance, as a terminating proxy would.
  const front = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    cert: await Deno.readTextFile(files.cert),
    key: await Deno.readTextFile(files.key),
    onListen() {},
  }, (req) => {
    const url = new URL(req.url);
    return fetch(upstream + url.pathname + url.search, { headers: req.headers });
  });
  const base = `https://localhost:${front.addr.port}`;
  const inst = await startInstance({ SEALPOST_BASE_URL: base });
  upstream = inst.url;
  try {
    const trusted = await sealpost(
      ["doctor", "--url", base, "--data", inst.config.data_dir],
      { DENO_CERT: files.ca },
    );
    assert.equal(trusted.code, 0, trusted.stdout + trusted.stderr);
    assert.match(
      trusted.stdout,
      /^ok {4}tls_certificate\s+the certificate localhost:\d+ presents expires \S+, in 59 days/m,
    );
    assert.match(trusted.stdout, /^ok {4}base_url_matches/m);
    // Without the test CA the same certificate is untrusted: browsers would refuse it.
    const untrusted = await sealpost(["doctor", "--url", base, "--data", inst.config.data_dir]);
    assert.equal(untrusted.code, 1);
    assert.match(
      untrusted.stdout,
      /^FAIL {2}tls_certificate\s+the certificate .* is not trusted here/m,
    );

    // server.tls.cert_file, read with X509Certificate, when the base URL is not https.
    const now = Date.now();
    const fromFile = await tlsCheck("http://forms.example.org", files.cert, now);
    assert.equal(fromFile.status, "ok");
    assert.match(fromFile.detail, /^server\.tls\.cert_file .*cert\.pem expires .*, in 59 days$/);
    const day = 86_400_000;
    assert.equal(
      (await tlsCheck("http://x.example", files.cert, now + (60 - WARN_DAYS) * day)).status,
      "warn",
    );
    assert.equal(
      (await tlsCheck("http://x.example", files.cert, now + (60 - FAIL_DAYS) * day)).status,
      "fail",
    );
    assert.match(
      (await tlsCheck("http://x.example", files.cert, now + 61 * day)).detail,
      /expired/,
    );
    // No certificate anywhere and a public name over plain http: a warning.
    assert.equal((await tlsCheck("http://forms.example.org", "")).status, "warn");
    assert.equal((await tlsCheck("http://abcdef.onion", "")).status, "skip");
  } finally {
    await inst.close();
    await front.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("doctor: S3 bucket and PostgreSQL of the instance's configuration", async () => {
  const pg = await freshPg();
  const pgEnv = {
    SEALPOST_STORE_BACKEND: "postgres",
    SEALPOST_STORE_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
    SEALPOST_STORE_POSTGRES_POOL_SIZE: "2",
  };
  const inst = await startOn("s3", pgEnv);
  try {
    const env = {
      ...pgEnv,
      SEALPOST_BLOBS_BACKEND: "s3",
      SEALPOST_BLOBS_S3_ENDPOINT: inst.config.blobs.s3.endpoint,
      SEALPOST_BLOBS_S3_BUCKET: inst.config.blobs.s3.bucket,
      SEALPOST_BLOBS_S3_REGION: inst.config.blobs.s3.region,
      SEALPOST_BLOBS_S3_ACCESS_KEY_ID_FILE: inst.config.blobs.s3.access_key_id_file,
      SEALPOST_BLOBS_S3_SECRET_ACCESS_KEY_FILE: inst.config.blobs.s3.secret_access_key_file,
    };
    const out = await doctor(inst, [], env);
    assert.equal(out.code, 0, out.stdout + out.stderr);
    assert.match(out.stdout, /^ok {4}s3_bucket\s+bucket http:\/\/\S+ answers HEAD with 200/m);
    assert.match(out.stdout, /^ok {4}postgres\s+127\.0\.0\.1:\d+\/\S+ answers \(PostgreSQL 15/m);

    const missing = await doctor(inst, [], { ...env, SEALPOST_BLOBS_S3_BUCKET: "t-nosuchbucket" });
    assert.equal(missing.code, 1);
    assert.match(missing.stdout, /^FAIL {2}s3_bucket\s+HEAD \S+\/t-nosuchbucket answered 404/m);
    const { port } = await postgresUp();
    const wrongPg = pg.url.replace(`:${port}/`, ":9/");
    const noPg = await doctor(inst, [], { ...env, SEALPOST_STORE_POSTGRES_URL: wrongPg });
    assert.equal(noPg.code, 1);
    assert.match(noPg.stdout, /^FAIL {2}postgres\s+127\.0\.0\.1:9\/\S+ cannot be reached/m);
    // Without the server's configuration, doctor says it cannot check what the instance uses.
    const bare = await doctor(inst);
    assert.equal(bare.code, 1);
    assert.match(
      bare.stdout,
      /^FAIL {2}postgres\s+the instance uses it but this doctor's configuration/m,
    );
  } finally {
    await inst.close();
    await pg.close();
  }
});

Deno.test("doctor --help lists every check; a stray argument is a usage error", async () => {
  const help = await sealpost(["doctor", "--help"]);
  assert.equal(help.code, 0);
  for (
    const name of [
      "base_url_reachable",
      "base_url_matches",
      "tls_certificate",
      "clock",
      "storage",
      "data_dir_modes",
      "open_files",
      "disk_free",
      "s3_bucket",
      "postgres",
    ]
  ) assert.match(help.stdout, new RegExp(`^  ${name} `, "m"));
  const stray = await sealpost(["doctor", "extra"]);
  assert.equal(stray.code, 2);
  assert.match(stray.stderr, /Unexpected arguments: extra/);
  const main = await sealpost(["--help"]);
  assert.match(main.stdout, /^ {2}doctor {16}Check a live deployment/m);
});

Deno.test("doctor units: clock skew over 60 s fails; low limits warn; thresholds", () => {
  const probe = (skewMs: number): HealthProbe => ({
    status: 200,
    body: { status: "ok" },
    elapsedMs: 1,
    midpointMs: Date.parse("2026-11-28T08:00:00Z") + skewMs,
    date: "Sat, 28 Nov 2026 08:00:00 GMT",
  });
  assert.equal(clockCheck(probe(59_000)).status, "ok");
  const late = clockCheck(probe(-61_000));
  assert.equal(late.status, "fail");
  assert.match(late.detail, /^61\.0 s between this machine's clock and the server's/);
  assert.equal(clockCheck({ ...probe(0), date: null }).status, "skip");
  assert.match(clockCheck({ ...probe(0), status: 0 }).detail, /did not answer/);

  const own = (limit: number) => ({ kind: "own" as const, limit });
  assert.equal(openFilesCheck(own(1024), 0).status, "warn");
  assert.match(openFilesCheck(own(1024), 0).detail, /up to 448 connections at once; raise it/);
  assert.equal(openFilesCheck(own(NOFILE_WARN), 0).status, "ok");
  assert.equal(DISK_FAIL_BYTES, 1024 ** 3);
});
