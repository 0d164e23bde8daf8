/**
 * A single-node Ceph object gateway for development and tests, from Debian's packages
 * (`ceph-mon`, `ceph-osd`, `radosgw`, `ceph-common`), on 127.0.0.1 only: one monitor, one OSD
 * (BlueStore on a sparse 20 GiB file), and radosgw's beast frontend with `tcp_nodelay=1`. The
 * messenger runs in crc mode (`ms mon client mode = crc`, `ms client mode = crc`) and cephx is
 * off: without those it hangs or answers slowly, and on loopback there is nothing to protect.
 * Then an S3 user with generated keys and a bucket whose CORS lets any page PUT and GET.
 *
 * `radosgwUp()` is idempotent: a gateway of this checkout that still answers is reused.
 */
import { AwsClient } from "aws4fetch";
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import { freePort, readState, run, servicesDir, stepTimer, stopPidFile, until } from "./_run.ts";

/** How to reach the gateway: what `[blobs.s3]` needs. */
export interface RadosgwEnv {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Seconds each step of the start took (absent when an answering gateway was reused). */
  timings?: Record<string, number>;
}

/** The bucket CORS the browser form page needs to PUT to and GET from the store directly. */
export const BUCKET_CORS = `<?xml version="1.0" encoding="UTF-8"?>
<CORSConfiguration>
  <CORSRule>
    <AllowedOrigin>*</AllowedOrigin>
    <AllowedMethod>PUT</AllowedMethod>
    <AllowedMethod>GET</AllowedMethod>
    <AllowedMethod>HEAD</AllowedMethod>
    <AllowedHeader>content-type</AllowedHeader>
    <AllowedHeader>x-amz-content-sha256</AllowedHeader>
    <AllowedHeader>range</AllowedHeader>
    <ExposeHeader>ETag</ExposeHeader>
    <MaxAgeSeconds>86400</MaxAgeSeconds>
  </CORSRule>
</CORSConfiguration>
`;

const dir = () => join(servicesDir(), "radosgw");
const stateFile = () => join(dir(), "state.json");
const DAEMONS = ["client.rgw.a", "osd.0", "mon.a"];

/**
 * The pools of radosgw's default zone. Created up front, all at once, they take about 5 s;
 * radosgw creating them one by one on its first start takes about 9 s more.
 */
const RGW_POOLS = [
  ".rgw.root",
  "default.rgw.log",
  "default.rgw.control",
  "default.rgw.meta",
  "default.rgw.buckets.index",
  "default.rgw.buckets.data",
  "default.rgw.buckets.non-ec",
];

function cephConf(root: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = [v2:127.0.0.1:${monPort}]
public network = 127.0.0.1/32
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = false
ms mon client mode = crc
ms client mode = crc
ms mon cluster mode = crc
ms cluster mode = crc
ms service mode = crc
ms mon service mode = crc
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 0
osd crush chooseleaf type = 0
run dir = ${root}/run
log file = ${root}/log/$name.log
admin socket = ${root}/run/$name.asok
pid file = ${root}/run/$name.pid
keyring = ${root}/keyring
mon data = ${root}/mon/$name
osd data = ${root}/osd/$name
osd objectstore = bluestore
bluestore block create = true
bluestore block size = 21474836480
bluestore cache autotune = false
bluestore cache size = 134217728
osd memory target = 939524096

[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1
rgw data = ${root}/rgw
rgw dns name = 127.0.0.1
`;
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(endpoint, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status < 500;
  } catch {
    return false;
  }
}

/** An S3 client of the gateway's user. */
export function s3Client(env: RadosgwEnv): AwsClient {
  return new AwsClient({
    accessKeyId: env.accessKeyId,
    secretAccessKey: env.secretAccessKey,
    service: "s3",
    region: env.region,
  });
}

/**
 * Creates the bucket `env.bucket` (idempotent) and sets its CORS rules.
 *
 * @example
 * ```ts
 * await prepareBucket({ ...await radosgwUp(), bucket: "t-1234" });
 * ```
 */
export async function prepareBucket(env: RadosgwEnv): Promise<void> {
  const client = s3Client(env);
  const bucketUrl = `${env.endpoint}/${env.bucket}`;
  const made = await client.fetch(bucketUrl, { method: "PUT" });
  const text = await made.text();
  if (!made.ok && !text.includes("BucketAlreadyOwnedByYou")) {
    throw new Error(`Creating bucket ${env.bucket}: HTTP ${made.status} ${text}`);
  }
  const cors = await client.fetch(`${bucketUrl}?cors`, {
    method: "PUT",
    body: BUCKET_CORS,
    headers: {
      "content-type": "application/xml",
      "content-md5": createHash("md5").update(BUCKET_CORS).digest("base64"),
    },
  });
  if (!cors.ok) {
    throw new Error(`Setting the bucket CORS: HTTP ${cors.status} ${await cors.text()}`);
  }
}

/**
 * The `SEALPOST_BLOBS_*` settings of a server storing its blobs in bucket `env.bucket`, with the
 * keys written as files into `dir` (never in the environment of the server).
 *
 * @example
 * ```ts
 * const settings = await s3ServerEnv({ ...await radosgwUp(), bucket: "t-1234" }, secretsDir);
 * ```
 */
export async function s3ServerEnv(env: RadosgwEnv, dir: string): Promise<Record<string, string>> {
  await Deno.writeTextFile(join(dir, "id"), env.accessKeyId);
  await Deno.writeTextFile(join(dir, "secret"), `${env.secretAccessKey}\n`);
  return {
    SEALPOST_BLOBS_BACKEND: "s3",
    SEALPOST_BLOBS_S3_ENDPOINT: env.endpoint,
    SEALPOST_BLOBS_S3_REGION: env.region,
    SEALPOST_BLOBS_S3_BUCKET: env.bucket,
    SEALPOST_BLOBS_S3_ACCESS_KEY_ID_FILE: join(dir, "id"),
    SEALPOST_BLOBS_S3_SECRET_ACCESS_KEY_FILE: join(dir, "secret"),
  };
}

/**
 * Starts the gateway of this checkout (or reuses it when it answers) and returns how to reach
 * it. Throws with the failing step and its log when a daemon does not come up.
 *
 * @example
 * ```ts
 * const s3 = await radosgwUp(); // { endpoint: "http://127.0.0.1:…", bucket: "sealpost", … }
 * ```
 */
export async function radosgwUp(): Promise<RadosgwEnv> {
  const known = await readState<RadosgwEnv>(stateFile());
  if (known && await answers(known.endpoint)) return known;
  await radosgwDown();
  const root = dir();
  for (const sub of ["run", "log", "mon/mon.a", "osd/osd.0", "rgw"]) {
    await Deno.mkdir(join(root, sub), { recursive: true });
  }
  const { timings, step } = stepTimer();
  const conf = join(root, "ceph.conf");
  const c = ["-c", conf];
  const fsid = crypto.randomUUID();
  const monPort = freePort();
  const rgwPort = freePort();
  await Deno.writeTextFile(conf, cephConf(root, fsid, monPort, rgwPort));
  const ceph = (args: string[]) => run("ceph", [...c, "--connect-timeout", "15", ...args]);
  try {
    await run("ceph-authtool", [
      "--create-keyring",
      join(root, "keyring"),
      "--gen-key",
      "-n",
      "mon.",
      "--cap",
      "mon",
      "allow *",
    ]);
    const monmap = join(root, "monmap");
    await run("monmaptool", [
      "--create",
      "--addv",
      "a",
      `[v2:127.0.0.1:${monPort}]`,
      "--fsid",
      fsid,
      monmap,
    ]);
    await run("ceph-mon", [...c, "--mkfs", "-i", "a", "--monmap", monmap]);
    await run("ceph-mon", [...c, "-i", "a"]);
    await ceph(["status"]);
    step("mon");
    await ceph(["osd", "create"]);
    await run("ceph-osd", [...c, "-i", "0", "--mkfs"], { timeoutMs: 120_000 });
    await run("ceph-osd", [...c, "-i", "0"]);
    await until("osd.0 did not come up", async () => {
      const stat = await ceph(["osd", "stat", "--format", "json"]);
      return JSON.parse(stat.stdout).num_up_osds === 1;
    }, 60_000);
    step("osd");
    await Promise.all(RGW_POOLS.map((pool) => ceph(["osd", "pool", "create", pool, "8", "8"])));
    await Promise.all(
      RGW_POOLS.map((pool) => ceph(["osd", "pool", "application", "enable", pool, "rgw"])),
    );
    step("pools");
    await run("radosgw", [...c, "-n", "client.rgw.a"]);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await until(`radosgw did not answer on ${endpoint}`, () => answers(endpoint), 120_000);
    step("radosgw");
    const env: RadosgwEnv = {
      endpoint,
      region: "us-east-1",
      bucket: "sealpost",
      accessKeyId: randomBytes(10).toString("hex").toUpperCase(),
      secretAccessKey: randomBytes(20).toString("hex"),
    };
    await run("radosgw-admin", [
      ...c,
      "user",
      "create",
      "--uid=sealpost",
      "--display-name=Sealpost",
      `--access-key=${env.accessKeyId}`,
      `--secret-key=${env.secretAccessKey}`,
    ]);
    await prepareBucket(env);
    step("user and bucket");
    await Deno.writeTextFile(stateFile(), JSON.stringify(env));
    return { ...env, timings };
  } catch (err) {
    const logs = await Array.fromAsync(Deno.readDir(join(root, "log"))).catch(() => []);
    const tails = await Promise.all(logs.map(async (f) => {
      const text = await Deno.readTextFile(join(root, "log", f.name)).catch(() => "");
      return `--- ${f.name}\n${text.split("\n").slice(-15).join("\n")}`;
    }));
    await radosgwDown();
    throw new Error(
      `The Ceph object gateway could not start: ${(err as Error).message}\n${tails.join("\n")}`,
    );
  }
}

/** Deletes every object of the bucket `env.bucket`, then the bucket. */
export async function dropBucket(env: RadosgwEnv): Promise<void> {
  const client = s3Client(env);
  const bucketUrl = `${env.endpoint}/${env.bucket}`;
  for (let page = 0; page < 100; page++) {
    const listing = await (await client.fetch(`${bucketUrl}?list-type=2`)).text();
    const keys = [...listing.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]);
    if (keys.length === 0) break;
    for (const key of keys) {
      await (await client.fetch(`${bucketUrl}/${key}`, { method: "DELETE" })).body?.cancel();
    }
  }
  const res = await client.fetch(bucketUrl, { method: "DELETE" });
  if (!res.ok) {
    throw new Error(`Deleting bucket ${env.bucket}: HTTP ${res.status} ${await res.text()}`);
  }
  await res.body?.cancel();
}

/** Stops the gateway's daemons and deletes their data (nothing happens when none runs). */
export async function radosgwDown(): Promise<void> {
  for (const daemon of DAEMONS) await stopPidFile(join(dir(), "run", `${daemon}.pid`));
  await Deno.remove(dir(), { recursive: true }).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
}
