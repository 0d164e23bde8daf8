/**
 * The blob backends the upload tests run on: `fs` (bytes through Sealpost) and `s3` (a real
 * Ceph radosgw on loopback, started once per test process by tests/_support/services/).
 * Each s3 instance gets a bucket of its own, dropped when it closes.
 */
import { randomBytes } from "node:crypto";
import {
  dropBucket,
  prepareBucket,
  type RadosgwEnv,
  radosgwUp,
  s3ServerEnv,
} from "../_support/services/radosgw.ts";
import { startInstance, type TestInstance } from "../_support/server.ts";

/** The backends, in the order the tests run them. */
export const BACKENDS = ["fs", "s3"] as const;

/** One of {@link BACKENDS}. */
export type Backend = typeof BACKENDS[number];

let gateway: Promise<RadosgwEnv> | null = null;

/** The radosgw of this checkout, started on first use; a clear error when it cannot start. */
export function radosgw(): Promise<RadosgwEnv> {
  gateway ??= radosgwUp().catch((err) => {
    throw new Error(
      "The S3 upload tests need the Ceph object gateway (Debian packages ceph-mon ceph-osd " +
        `radosgw ceph-common; deno task services up radosgw): ${(err as Error).message}`,
    );
  });
  return gateway;
}

/** An instance on `backend` (with `env` overrides) and, on s3, its bucket. */
export async function startOn(
  backend: Backend,
  env: Record<string, string> = {},
): Promise<TestInstance & { s3: RadosgwEnv | null }> {
  if (backend === "fs") return { ...await startInstance(env), s3: null };
  const s3 = { ...await radosgw(), bucket: `t-${randomBytes(8).toString("hex")}` };
  await prepareBucket(s3);
  const secrets = await Deno.makeTempDir({ prefix: "sealpost-s3-keys-" });
  const inst = await startInstance({ ...await s3ServerEnv(s3, secrets), ...env });
  return {
    ...inst,
    s3,
    close: async () => {
      await inst.close();
      await dropBucket(s3);
      await Deno.remove(secrets, { recursive: true });
    },
  };
}

/** Whether a PUT's status says stored: Sealpost answers 201, an S3 store 200. */
export function stored(status: number): boolean {
  return status === 201 || status === 200;
}

/**
 * When a pre-signed URL expires, in epoch seconds: Sealpost's `expires`, or an S3 URL's
 * `X-Amz-Date` plus `X-Amz-Expires`.
 */
export function urlExpiry(url: string): number {
  const q = new URL(url).searchParams;
  const expires = q.get("expires");
  if (expires !== null) return Number(expires);
  const date = q.get("X-Amz-Date")!.replace(
    /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/,
    "$1-$2-$3T$4:$5:$6Z",
  );
  return Date.parse(date) / 1000 + Number(q.get("X-Amz-Expires"));
}
