/**
 * The checks of the backends the instance stores into, from this machine with the same
 * configuration: the S3 bucket (a signed HEAD of the bucket) and PostgreSQL (`select 1`).
 * The embedded Deno KV store is checked by the instance itself (`/healthz`, the `storage`
 * check).
 *
 * @module
 */
import { AwsClient } from "aws4fetch";
import { readS3Credentials } from "../blobs/s3_store.ts";
import type { Config } from "../config/index.ts";
import { describePgUrl, openPg } from "../store/pg/index.ts";
import { check, type CheckResult, NETWORK_TIMEOUT_MS, reason } from "./check.ts";

/**
 * `s3_bucket`: a signed `HEAD {endpoint}/{bucket}` with the credentials `[blobs.s3]` names.
 *
 * @example
 * ```ts
 * if (config.blobs.backend === "s3") results.push(await s3Check(config.blobs.s3));
 * ```
 */
export async function s3Check(settings: Config["blobs"]["s3"]): Promise<CheckResult> {
  const name = "s3_bucket";
  const where = `${settings.endpoint.replace(/\/+$/, "")}/${settings.bucket}`;
  try {
    const client = new AwsClient({
      ...await readS3Credentials(settings),
      service: "s3",
      region: settings.region,
      retries: 0,
    });
    const response = await client.fetch(where, {
      method: "HEAD",
      signal: AbortSignal.timeout(NETWORK_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.ok) {
      return check(name, "ok", `bucket ${where} answers HEAD with ${response.status}`);
    }
    const why = response.status === 404
      ? "the bucket does not exist"
      : response.status === 403
      ? "the credentials are refused"
      : "the store refused";
    return check(name, "fail", `HEAD ${where} answered ${response.status}: ${why}`);
  } catch (err) {
    return check(name, "fail", `bucket ${where} cannot be reached: ${reason(err)}`);
  }
}

/**
 * `postgres`: connects with `store.postgres_url` and runs `select 1` (the URL's password is
 * never shown).
 *
 * @example
 * ```ts
 * if (config.store.backend === "postgres") results.push(await postgresCheck(config.store.postgres_url));
 * ```
 */
export async function postgresCheck(url: string): Promise<CheckResult> {
  const name = "postgres";
  const where = describePgUrl(url);
  const sql = openPg(url, { max: 1, applicationName: "sealpost doctor" });
  try {
    const started = Date.now();
    const [row] = await sql`select current_setting('server_version') as version`;
    return check(
      name,
      "ok",
      `${where} answers (PostgreSQL ${row.version}, ${Date.now() - started} ms)`,
    );
  } catch (err) {
    return check(name, "fail", `${where} cannot be reached: ${reason(err)}`);
  } finally {
    await sql.end({ timeout: 1 });
  }
}
