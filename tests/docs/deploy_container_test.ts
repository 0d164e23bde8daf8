/**
 * The container kit of docs/deploy/ (Containerfile, compose.yaml), outside a container.
 *
 * These machines can pull no image and run no container, so the image is never built here.
 * What is checked: the Containerfile's ENTRYPOINT + CMD run with its ENV against a bundle
 * built by `deno task bundle` in a temp folder (the image's paths mapped to temp paths,
 * `deno` to this Deno, `/tini --` left out: tini only forwards signals), the instance answers,
 * its HEALTHCHECK command (run the same way) exits 0 while it serves and 1 once it has
 * stopped, SIGTERM stops it with exit 0; the base image is pinned by tag and digest and the
 * user is not root; compose.yaml (parsed with python3's yaml) builds that file and mounts the
 * data volume where the image declares it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundle, KIT, operatorEnv, run, waitHealthy } from "./_deploy.ts";
import { freePort } from "../_support/process.ts";

/** One instruction of a Containerfile, continuation lines joined. */
interface Instruction {
  op: string;
  args: string;
}

function parseContainerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, " ");
  const out: Instruction[] = [];
  for (const raw of joined.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line)!;
    out.push({ op: op.toUpperCase(), args: args.trim() });
  }
  return out;
}

function only(instructions: Instruction[], op: string): string {
  const found = instructions.filter((i) => i.op === op);
  assert.equal(found.length, 1, `one ${op}`);
  return found[0].args;
}

/** `ENV A=1 B=2` pairs (the kit writes plain, unquoted values). */
function envOf(instructions: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { args } of instructions.filter((i) => i.op === "ENV")) {
    for (const pair of args.split(/\s+/)) {
      const eq = pair.indexOf("=");
      env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}

const IMAGE_BUNDLE = "/opt/sealpost/sealpost.js";
const IMAGE_DATA = "/var/lib/sealpost";

Deno.test("Containerfile: pinned base, unprivileged user, the data volume, one port", async () => {
  const file = parseContainerfile(await Deno.readTextFile(join(KIT, "Containerfile")));
  assert.match(
    only(file, "FROM"),
    /^docker\.io\/denoland\/deno:2\.9\.6@sha256:[0-9a-f]{64}$/,
  );
  const user = only(file, "USER");
  assert.notEqual(user, "root");
  assert.notEqual(user, "0");
  assert.deepEqual(JSON.parse(only(file, "VOLUME")), [IMAGE_DATA]);
  assert.equal(only(file, "EXPOSE"), envOf(file).SEALPOST_SERVER_PORT);
  assert.equal(envOf(file).SEALPOST_SERVER_HOST, "0.0.0.0");
  assert.match(only(file, "RUN"), /install -d -o deno -g deno -m 0700 \/var\/lib\/sealpost/);
  // No curl or wget: the health check is Deno's own fetch.
  assert.match(only(file, "HEALTHCHECK"), /^--interval=\S+ --timeout=\S+ .*CMD \["deno", "eval"/);
});

Deno.test("Containerfile: ENTRYPOINT + CMD serve the bundle; HEALTHCHECK sees it up, then down", async () => {
  const file = parseContainerfile(await Deno.readTextFile(join(KIT, "Containerfile")));
  const entrypoint: string[] = JSON.parse(only(file, "ENTRYPOINT"));
  const cmd: string[] = JSON.parse(only(file, "CMD"));
  const health: string[] = JSON.parse(only(file, "HEALTHCHECK").replace(/^.*?CMD\s+/, ""));
  assert.deepEqual(entrypoint.slice(0, 2), ["/tini", "--"]);

  const dir = await Deno.makeTempDir({ prefix: "sealpost-container-" });
  const data = join(dir, "data");
  const bundled = await bundle();
  const here = (arg: string) =>
    arg === "deno" ? Deno.execPath() : arg.replace(IMAGE_BUNDLE, bundled).replace(IMAGE_DATA, data);
  const port = freePort();
  const env = operatorEnv({
    ...envOf(file),
    SEALPOST_SERVER_PORT: String(port),
    DENO_DIR: join(dir, "deno-dir"),
  });
  const [program, ...args] = [...entrypoint.slice(2), ...cmd].map(here);
  assert.equal(program, Deno.execPath());
  assert.deepEqual(args, ["run", "-A", "--unstable-kv", bundled, "serve", "--data", data]);
  const serve = new Deno.Command(program, {
    args,
    cwd: dir,
    clearEnv: true,
    env,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    const body = JSON.parse(await waitHealthy(`http://127.0.0.1:${port}/healthz`));
    assert.equal(body.status, "ok");
    const [hProgram, ...hArgs] = health.map(here);
    const up = await run(hProgram, hArgs, { env });
    assert.equal(up.code, 0, up.stderr);
    // The data dir it made is the one doctor accepts (0700, secrets 0600).
    const doctor = await run(program, [...args.slice(0, 4), "doctor", "--data", data], {
      env: { ...env, SEALPOST_URL: `http://127.0.0.1:${port}` },
    });
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    assert.equal((await Deno.stat(data)).mode! & 0o777, 0o700);

    serve.kill("SIGTERM");
    const status = await serve.status;
    assert.equal(status.code, 0, "SIGTERM: a clean stop");
    const down = await run(hProgram, hArgs, { env });
    assert.equal(down.code, 1, "the health check fails once the instance is down");
  } finally {
    try {
      serve.kill("SIGKILL");
    } catch {
      // Already stopped.
    }
    await serve.stderr.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compose.yaml: builds the Containerfile, the data volume, loopback port, limits", async () => {
  const parsed = await run("python3", [
    "-c",
    "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
    join(KIT, "compose.yaml"),
  ]);
  assert.equal(parsed.code, 0, parsed.stderr);
  const compose = JSON.parse(parsed.stdout);
  const service = compose.services.sealpost;
  const context = new URL(`${service.build.context}/`, new URL(`file://${KIT}`)).pathname;
  assert.ok(
    (await Deno.stat(join(context, service.build.dockerfile))).isFile,
    "build.dockerfile exists relative to build.context",
  );
  assert.equal(join(context, service.build.dockerfile), join(KIT, "Containerfile"));
  assert.deepEqual(service.volumes.filter((v: string) => !v.startsWith("#")), [
    `sealpost-data:${IMAGE_DATA}`,
  ]);
  assert.ok("sealpost-data" in compose.volumes);
  assert.deepEqual(service.ports, ["127.0.0.1:8080:8080"]);
  assert.deepEqual(service.ulimits.nofile, { soft: 65536, hard: 65536 });
  assert.deepEqual(service.cap_drop, ["ALL"]);
  assert.deepEqual(service.security_opt, ["no-new-privileges:true"]);
  assert.equal(service.read_only, true);
  assert.match(service.environment.SEALPOST_BASE_URL, /^https:\/\//);
});
