/**
 * A PostgreSQL 15 cluster for development and tests, from Debian's `postgresql` package:
 * `initdb` and `pg_ctl` run as the `postgres` user (when started as root), listening on a
 * free port of 127.0.0.1 only (no Unix socket outside the cluster's folder), with a role and a
 * database for the tests.
 *
 * `postgresUp()` is idempotent: a cluster of this checkout that still answers is reused.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { freePort, readState, run, servicesDir, stepTimer, until } from "./_run.ts";

/** Where Debian puts the PostgreSQL 15 server programs. */
export const PG_BIN = "/usr/lib/postgresql/15/bin";

/** How to reach the cluster. */
export interface PostgresEnv {
  /** `postgres://sealpost:…@127.0.0.1:port/sealpost_test`. */
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** Seconds each step of the start took (absent when a running cluster was reused). */
  timings?: Record<string, number>;
}

const dir = () => join(servicesDir(), "postgres");
const dataDir = () => join(dir(), "data");
const stateFile = () => join(dir(), "state.json");

/** Runs a PostgreSQL program as the `postgres` user when we are root, else as ourselves. */
function asPostgres(
  program: string,
  args: string[],
  options: { timeoutMs?: number; allowFailure?: boolean } = {},
) {
  const path = join(PG_BIN, program);
  return Deno.uid() === 0
    ? run("runuser", ["-u", "postgres", "--", path, ...args], { ...options, cwd: "/" })
    : run(path, args, options);
}

async function ready(env: { port: number }): Promise<boolean> {
  const out = await run(join(PG_BIN, "pg_isready"), [
    "-h",
    "127.0.0.1",
    "-p",
    String(env.port),
    "-t",
    "2",
  ], { allowFailure: true });
  return out.code === 0;
}

/** Runs SQL as the cluster's superuser (over the cluster's own socket folder). */
function superSql(port: number, sql: string) {
  return asPostgres("psql", [
    "-h",
    join(dir(), "run"),
    "-p",
    String(port),
    "-U",
    "postgres",
    "-d",
    "postgres",
    "-v",
    "ON_ERROR_STOP=1",
    "-q",
    "-c",
    sql,
  ]);
}

/**
 * Starts the cluster of this checkout (or reuses it when it answers) and returns how to
 * reach it. The tests' cluster trades durability for speed (`fsync`, `synchronous_commit` and
 * `full_page_writes` off); `durable` starts it with PostgreSQL's durable defaults instead (a
 * benchmark's cluster, in a `SERVICES_DIR` of its own).
 *
 * @example
 * ```ts
 * const pg = await postgresUp(); // { url: "postgres://sealpost:…@127.0.0.1:…/sealpost_test" }
 * ```
 */
export async function postgresUp(options: { durable?: boolean } = {}): Promise<PostgresEnv> {
  const known = await readState<PostgresEnv>(stateFile());
  if (known && await ready(known)) return known;
  await postgresDown();
  const { timings, step } = stepTimer();
  await Deno.mkdir(join(dir(), "run"), { recursive: true });
  if (Deno.uid() === 0) await run("chown", ["-R", "postgres:postgres", dir()]);
  const port = freePort();
  const password = randomBytes(12).toString("hex");
  try {
    await asPostgres("initdb", [
      "-D",
      dataDir(),
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ], { timeoutMs: 120_000 });
    step("initdb");
    await asPostgres("pg_ctl", [
      "-D",
      dataDir(),
      "-l",
      join(dir(), "postgres.log"),
      "-w",
      "-t",
      "60",
      "start",
      "-o",
      `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${join(dir(), "run")}` +
      (options.durable
        ? " -c fsync=on -c synchronous_commit=on -c full_page_writes=on"
        : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"),
    ], { timeoutMs: 90_000 });
    await until("PostgreSQL did not accept connections", () => ready({ port }), 30_000);
    step("start");
    await superSql(port, `CREATE ROLE sealpost LOGIN PASSWORD '${password}'`);
    await superSql(port, "CREATE DATABASE sealpost_test OWNER sealpost");
    step("role and database");
  } catch (err) {
    const log = await Deno.readTextFile(join(dir(), "postgres.log")).catch(() => "");
    await postgresDown();
    throw new Error(
      `PostgreSQL could not start: ${(err as Error).message}\n${
        log.split("\n").slice(-15).join("\n")
      }`,
    );
  }
  const env: PostgresEnv = {
    url: `postgres://sealpost:${password}@127.0.0.1:${port}/sealpost_test`,
    host: "127.0.0.1",
    port,
    user: "sealpost",
    password,
    database: "sealpost_test",
  };
  await Deno.writeTextFile(stateFile(), JSON.stringify(env));
  return { ...env, timings };
}

/** Stops the cluster and deletes its data (nothing happens when none runs). */
export async function postgresDown(): Promise<void> {
  const running = await Deno.stat(join(dataDir(), "postmaster.pid")).then(() => true, () => false);
  if (running) {
    await asPostgres("pg_ctl", ["-D", dataDir(), "-m", "immediate", "-w", "stop"], {
      allowFailure: true,
    });
  }
  await Deno.remove(dir(), { recursive: true }).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
}
