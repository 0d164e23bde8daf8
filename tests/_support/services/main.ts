/**
 * `deno task services up|down|env [radosgw|postgres|pebble]`: brings the development and test
 * services of this checkout up or down (all when none is named), or prints how to reach them
 * as shell `export` lines (`eval "$(deno task -q services env)"`). See docs/scale.md.
 */
import { pebbleDown, type PebbleEnv, pebbleUp } from "./pebble.ts";
import { postgresDown, type PostgresEnv, postgresUp } from "./postgres.ts";
import { radosgwDown, type RadosgwEnv, radosgwUp } from "./radosgw.ts";

const USAGE = "usage: deno task services up|down|env [radosgw|postgres|pebble]";
const SERVICES = ["radosgw", "postgres", "pebble"];

/** The shell lines that export how to reach the services. */
export function exportLines(
  s3: RadosgwEnv | null,
  pg: PostgresEnv | null,
  acme: PebbleEnv | null = null,
): string[] {
  const lines: string[] = [];
  const quote = (v: string) => `'${v.replaceAll("'", `'\\''`)}'`;
  if (s3) {
    lines.push(
      `export S3_ENDPOINT=${quote(s3.endpoint)}`,
      `export S3_REGION=${quote(s3.region)}`,
      `export S3_BUCKET=${quote(s3.bucket)}`,
      `export AWS_ACCESS_KEY_ID=${quote(s3.accessKeyId)}`,
      `export AWS_SECRET_ACCESS_KEY=${quote(s3.secretAccessKey)}`,
    );
  }
  if (pg) {
    lines.push(
      `export POSTGRES_URL=${quote(pg.url)}`,
      `export PGHOST=${quote(pg.host)}`,
      `export PGPORT=${quote(String(pg.port))}`,
      `export PGUSER=${quote(pg.user)}`,
      `export PGPASSWORD=${quote(pg.password)}`,
      `export PGDATABASE=${quote(pg.database)}`,
    );
  }
  if (acme) {
    lines.push(
      `export PEBBLE_DIRECTORY_URL=${quote(acme.directoryUrl)}`,
      `export PEBBLE_CA_FILE=${quote(acme.caFile)}`,
      `export PEBBLE_HTTP_PORT=${quote(String(acme.httpPort))}`,
      `export PEBBLE_MANAGEMENT_URL=${quote(acme.managementUrl)}`,
    );
  }
  return lines;
}

if (import.meta.main) {
  const [action, which] = Deno.args;
  const names = which ? [which] : SERVICES;
  if (!["up", "down", "env"].includes(action) || names.some((n) => !SERVICES.includes(n))) {
    console.error(USAGE);
    Deno.exit(2);
  }
  if (action === "down") {
    if (names.includes("radosgw")) await radosgwDown();
    if (names.includes("postgres")) await postgresDown();
    if (names.includes("pebble")) await pebbleDown();
    Deno.exit(0);
  }
  const started = performance.now();
  const s3 = names.includes("radosgw") ? await radosgwUp() : null;
  const pg = names.includes("postgres") ? await postgresUp() : null;
  const acme = names.includes("pebble") ? await pebbleUp() : null;
  if (action === "up") {
    for (const [name, env] of [["radosgw", s3], ["postgres", pg], ["pebble", acme]] as const) {
      if (!env) continue;
      const steps = env.timings
        ? Object.entries(env.timings).map(([k, v]) => `${k} ${v} s`).join(", ")
        : "already running";
      console.error(`${name}: ${steps}`);
    }
    console.error(`up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  console.log(exportLines(s3, pg, acme).join("\n"));
}
