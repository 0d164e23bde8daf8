/**
 * `sealpost doctor`: checks a live deployment from beside it, one result per check. Over
 * HTTP: the base URL answers and is the instance's own, TLS days left, clock skew, storage.
 * On this machine: data dir modes, the open-file limit, free disk. Each backend the
 * configuration names: the S3 bucket, PostgreSQL.
 *
 * @module
 */
import type { InstanceInfo } from "../admin/api/instance.ts";
import type { SealpostClient } from "../cli/client.ts";
import type { Config } from "../config/index.ts";
import { postgresCheck, s3Check } from "./backends.ts";
import { check, type CheckResult } from "./check.ts";
import { dataDirCheck, diskCheck, openFilesCheck, openFileSource } from "./host.ts";
import {
  clockCheck,
  fetchInstance,
  type InstanceUnavailable,
  matchCheck,
  probeHealth,
  reachableCheck,
  storageCheck,
} from "./remote.ts";
import { tlsCheck } from "./tls.ts";

export type { CheckResult, CheckStatus } from "./check.ts";

/** What doctor checks. */
export interface DoctorTarget {
  /** The instance's client: its base URL and the admin token, if one was found. */
  client: SealpostClient;
  /** The configuration doctor loaded (--config, SEALPOST_*): backends, TLS files, limits. */
  config: Config;
  /** The data dir given with --data, if any (else the instance's, else the config's). */
  dataDir?: string;
}

/** The data dir to check: --data, else the instance's own when it is on this machine. */
async function dataDirOf(target: DoctorTarget, info: InstanceInfo | null): Promise<string> {
  if (target.dataDir) return target.dataDir;
  if (info) {
    const here = await Deno.stat(info.dataDir).then(() => true, () => false);
    if (here) return info.dataDir;
  }
  return target.config.data_dir;
}

/**
 * A backend check when this process's config or the instance uses `backend`; a failure when
 * only the instance does (doctor was not given the server's configuration).
 */
async function backendCheck(
  name: string,
  usedHere: boolean,
  usedThere: boolean,
  run: () => Promise<CheckResult>,
): Promise<CheckResult | null> {
  if (usedHere) return await run();
  if (!usedThere) return null;
  return check(
    name,
    "fail",
    "the instance uses it but this doctor's configuration does not name it: run doctor with " +
      "the server's --config (and its environment)",
  );
}

/**
 * Runs every check against `target`, in order; never throws for what it finds.
 *
 * @example
 * ```ts
 * const results = await runDoctor({ client, config });
 * const failed = results.some((r) => r.status === "fail");
 * ```
 */
export async function runDoctor(target: DoctorTarget): Promise<CheckResult[]> {
  const { client, config } = target;
  const baseUrl = client.baseUrl;
  const results: CheckResult[] = [];
  const probe = await probeHealth(baseUrl);
  results.push(reachableCheck(baseUrl, probe));
  const reached = probe.status !== 0;
  const instance: InstanceInfo | InstanceUnavailable = reached
    ? await fetchInstance(client)
    : { verdict: "skip", unavailable: "the instance did not answer" };
  const info = "unavailable" in instance ? null : instance;
  results.push(matchCheck(baseUrl, instance));
  results.push(await tlsCheck(baseUrl, config.server.tls.cert_file));
  results.push(clockCheck(probe));
  results.push(storageCheck(probe));
  const dataDir = await dataDirOf(target, info);
  results.push(await dataDirCheck(dataDir, target.dataDir !== undefined));
  const limit = await openFileSource(info?.openFileLimit ?? null, dataDir);
  results.push(openFilesCheck(limit, config.server.max_connections));
  results.push(await diskCheck(dataDir));
  const backends = [
    await backendCheck(
      "s3_bucket",
      config.blobs.backend === "s3",
      info?.blobs === "s3",
      () => s3Check(config.blobs.s3),
    ),
    await backendCheck(
      "postgres",
      config.store.backend === "postgres",
      info?.store === "postgres",
      () => postgresCheck(config.store.postgres_url),
    ),
  ];
  for (const result of backends) if (result) results.push(result);
  return results;
}
