import { sealpost } from "../_support/cli.ts";
import assert from "node:assert/strict";
import { addPerson } from "../_support/people.ts";
import { startInstance } from "../_support/server.ts";
import { consumeTicket } from "../../src/people/tickets.ts";
import { freshPg } from "../store/contract/_pg.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** `sealpost serve` on `dir` and a free port; its stdout as text, read up to its banner. */
async function serve(dir: string, env: Record<string, string> = {}, stderr: "piped" | "inherit") {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "serve", "--data", dir, "--port", "0"],
    env: { SEALPOST_SERVER_REQUEST_LOG: "false", ...env },
    stdin: "null",
    stdout: "piped",
    stderr,
  }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const banner = (await stdout.read()).value ?? "";
  return { child, stdout, banner };
}

Deno.test("init --json: creates the data dir once, secrets 0600, idempotent", async () => {
  const dir = await Deno.makeTempDir();
  const data = `${dir}/data`;
  try {
    const first = await sealpost(["init", "--json", "--data", data]);
    assert.equal(first.code, 0, first.stderr);
    const report = JSON.parse(first.stdout);
    assert.deepEqual(Object.keys(report).sort(), [
      "adminToken",
      "baseUrl",
      "dataDir",
      "ownerToken",
      "person",
      "userId",
    ]);
    // The first user is the first person, an instance admin, with a set-password link.
    assert.equal(report.person.personId, report.userId);
    assert.equal(report.person.email, "owner@127.0.0.1.invalid");
    assert.match(
      report.person.setPasswordLink,
      /^http:\/\/127\.0\.0\.1:8080\/console\/set-password#/,
    );
    assert.match(report.ownerToken, /^spo_/);
    assert.match(report.adminToken, /^spa_/);
    assert.equal(report.baseUrl, "http://127.0.0.1:8080");
    for (const file of ["relay.secret", "credentials.json"]) {
      assert.equal((await Deno.stat(`${data}/${file}`)).mode! & 0o777, 0o600, file);
    }
    const second = await sealpost(["init", "--json", "--data", data]);
    const again = JSON.parse(second.stdout);
    // Nothing changes but a new link for the first person, who has no password yet.
    assert.notEqual(again.person.setPasswordLink, report.person.setPasswordLink);
    const withoutLink = (r: typeof report) => ({
      ...r,
      person: { ...r.person, setPasswordLink: "", expiresAt: "" },
    });
    assert.deepEqual(withoutLink(again), withoutLink(report), "a second init changes nothing");
    const named = await sealpost(["init", "--email", "Ada@Example.org", "--data", data]);
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stdout, /first person: ada@example\.org \(instance admin\)/);
    assert.match(named.stdout, /set password: http:\/\/127\.0\.0\.1:8080\/console\/set-password#/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--version, --help, unknown commands and invalid config", async () => {
  const version = await sealpost(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^sealpost \d+\.\d+\.\d+/);
  const help = await sealpost(["--help"]);
  assert.equal(help.code, 0);
  for (const command of ["serve", "init", "user add", "submit"]) {
    assert.match(help.stdout, new RegExp(command));
  }
  for (const command of [["serve"], ["init"], ["user", "add"]]) {
    const own = await sealpost([...command, "--help"]);
    assert.equal(own.code, 0);
    assert.match(own.stdout, new RegExp(`^Usage: sealpost ${command.join(" ")}`));
  }
  const unknown = await sealpost(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command "frobnicate"/);
  const badFlag = await sealpost(["init", "--nope"]);
  assert.equal(badFlag.code, 2);
  const badEnv = await sealpost(["init"], { SEALPOST_SERVER_PORT: "eighty" });
  assert.equal(badEnv.code, 1);
  assert.match(badEnv.stderr, /SEALPOST_SERVER_PORT/);
  const badLists: [string, RegExp][] = [
    ["0,x", /SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS="0,x": item 2/],
    ["[0,-5]", /webhooks\.retry_schedule_seconds\.1/],
  ];
  for (const [raw, names] of badLists) {
    const badList = await sealpost(["init"], { SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS: raw });
    assert.equal(badList.code, 1, badList.stderr);
    assert.match(badList.stderr, names);
    assert.doesNotMatch(badList.stderr, /\bat |Uncaught/, "a message, not a stack trace");
  }
  const badPort = await sealpost(["serve", "--port", "x"]);
  assert.equal(badPort.code, 1);
  assert.match(badPort.stderr, /--port/);
});

Deno.test("serve: says how to reach a new instance once; SIGTERM drains and exits 0", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const start = () => serve(dir, {}, "inherit");
    const first = await start();
    assert.match(first.banner, /initialised/);
    assert.match(first.banner, /set password: +http:\/\/\S+\/console\/set-password#/);
    assert.match(first.banner, /credentials\.json/);
    assert.doesNotMatch(first.banner, /spo_|spa_/, "tokens are not printed");
    const url = /listens on (http:\/\/\S+)/.exec(first.banner)![1];
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    first.child.kill("SIGTERM");
    assert.equal((await first.child.status).code, 0);
    await first.stdout.cancel();

    const second = await start();
    assert.doesNotMatch(second.banner, /initialised/);
    second.child.kill("SIGINT");
    assert.equal((await second.child.status).code, 0);
    await second.stdout.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: a stop during the first run's vault setup lets it finish: one demo form", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Stopped as soon as it says where it listens, while the vault sets up its demo form.
    const run = async () => {
      const { child, stdout, banner } = await serve(dir, {}, "piped");
      let out = banner;
      assert.match(out, /listens on/);
      child.kill("SIGTERM");
      for (let step = await stdout.read(); !step.done; step = await stdout.read()) {
        out += step.value;
      }
      const status = await child.status;
      return { status, out, err: await new Response(child.stderr).text() };
    };
    const first = await run();
    assert.equal(first.status.code, 0);
    assert.doesNotMatch(first.err, /did not finish/);
    const demo = /demo form id:\s+(\S+)/.exec(first.out)?.[1];
    assert.ok(demo, `the setup finished and said so:\n${first.out}`);
    // The next start finds the setup done: the same demo form, not a second one.
    const second = await run();
    assert.equal(second.status.code, 0);
    assert.equal(/demo form id:\s+(\S+)/.exec(second.out)?.[1], demo);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: warns about SEALPOST_* variables that nothing reads, then runs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { child, stdout: out, banner } = await serve(
      dir,
      { SEALPOST_SERVER_PROT: "9000" },
      "piped",
    );
    assert.match(banner, /listens on http:\/\/127\.0\.0\.1:\d+/, "it runs on the defaults");
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    await out.cancel();
    const errors = await new Response(child.stderr).text();
    assert.match(errors, /warning: SEALPOST_SERVER_PROT is not a Sealpost setting and is ignored/);
    assert.doesNotMatch(errors, /SEALPOST_SERVER_REQUEST_LOG/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("user add --email: adds a person and prints a one-time set-password link that works", async () => {
  const inst = await startInstance();
  try {
    const added = await sealpost([
      "user",
      "add",
      "--email",
      "Carol@Example.org",
      "--name",
      "Carol",
      "--url",
      inst.url,
      "--token",
      inst.credentials.ownerToken,
    ]);
    assert.equal(added.code, 0, added.stderr);
    const link = /set password: (\S+)/.exec(added.stdout)?.[1] ?? "";
    assert.ok(link.startsWith(`${inst.server.baseUrl}/console/set-password#`), added.stdout);
    assert.match(added.stdout, /shown once/);
    const ports = inst.server.vault!.store;
    const carol = (await ports.people.byEmail("carol@example.org"))!;
    assert.equal(carol.name, "Carol");
    assert.equal(carol.instanceAdmin, false);
    assert.equal(carol.passwordHash, null, "no password is made for them");
    const ticket = await consumeTicket(ports.tickets, link.split("#")[1], "set_password");
    assert.equal(ticket?.personId, carol.id, "the link is Carol's set_password ticket");

    const admin = await sealpost([
      "user",
      "add",
      "--email",
      "dan@example.org",
      "--admin",
      "--json",
      "--url",
      inst.url,
      "--token",
      inst.credentials.ownerToken,
    ]);
    assert.equal(admin.code, 0, admin.stderr);
    const created = JSON.parse(admin.stdout);
    assert.equal(created.person.instanceAdmin, true);
    assert.match(created.setPasswordLink, /#[A-Za-z0-9_-]{43}$/);

    const taken = await sealpost([
      "user",
      "add",
      "--email",
      "carol@example.org",
      "--url",
      inst.url,
      "--token",
      inst.credentials.ownerToken,
    ]);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /carol@example.org/);
    const plain = await addPerson(inst);
    for (const token of [plain.token, inst.credentials.adminToken]) {
      const denied = await sealpost([
        "user",
        "add",
        "--email",
        "x@example.org",
        "--url",
        inst.url,
        "--token",
        token,
      ]);
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /instance admin|owner token/);
    }
    const missing = await sealpost(["user", "add", "--url", inst.url]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Missing --email/);
  } finally {
    await inst.close();
  }
});

Deno.test("client: a non-JSON error page becomes a clear ApiCallError", async () => {
  const { SealpostClient, ApiCallError } = await import("../../src/cli/client.ts");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("<html>Bad Gateway</html>", { status: 502 }),
  );
  try {
    const client = new SealpostClient(`http://127.0.0.1:${server.addr.port}`, null);
    await assert.rejects(client.call("GET", "/owner/me"), (err: Error) => {
      assert.ok(err instanceof ApiCallError);
      assert.equal(err.status, 502);
      assert.match(err.message, /HTTP 502: <html>Bad Gateway/);
      return true;
    });
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve: a port in use is a clear error and exit 1, not a crash", async () => {
  const dir = await Deno.makeTempDir();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = (taken.addr as Deno.NetAddr).port;
    const res = await sealpost(["serve", "--data", dir, "--port", String(port)], {
      SEALPOST_SERVER_REQUEST_LOG: "false",
    });
    assert.equal(res.code, 1, res.stderr);
    assert.match(
      res.stderr,
      new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use`),
    );
    assert.doesNotMatch(res.stderr, /Uncaught|at startServer/);
  } finally {
    taken.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("init --json on postgres: the first process initialises, the next joins with no tokens", async () => {
  const pg = await freshPg();
  const dir = await Deno.makeTempDir();
  try {
    const env = {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
    };
    const first = await sealpost(["init", "--json", "--data", `${dir}/a`], env);
    assert.equal(first.code, 0, first.stderr);
    const created = JSON.parse(first.stdout);
    assert.match(created.ownerToken, /^spo_/);
    const second = await sealpost(["init", "--data", `${dir}/b`], env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^Already initialised: .*\/b\n/);
    assert.match(second.stdout, new RegExp(`user id: +${created.userId}`));
    assert.match(second.stdout, /joined a database another process initialised/);
    const joined = JSON.parse(
      (await sealpost(["init", "--json", "--data", `${dir}/c`], env)).stdout,
    );
    assert.deepEqual(
      { ...joined, dataDir: "" },
      { ...created, dataDir: "", ownerToken: null, adminToken: null, person: null },
    );
    assert.doesNotMatch(first.stderr + second.stderr, /sealpost:[^@]*@/, "no password shown");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await pg.close();
  }
});

Deno.test("serve and init on an unreachable PostgreSQL: one line naming the database, no password", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close(); // nothing listens there now
    const env = {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: `postgres://sealpost:pw-never-shown@127.0.0.1:${port}/sealpost`,
    };
    for (const command of [["init"], ["serve", "--port", "0"]]) {
      const answer = await sealpost([...command, "--data", `${dir}/data`], env);
      assert.equal(answer.code, 1, answer.stderr);
      assert.equal(
        answer.stderr.trim(),
        `Cannot use the PostgreSQL database 127.0.0.1:${port}/sealpost: ` +
          `connect ECONNREFUSED 127.0.0.1:${port}`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
