/**
 * The systemd units of docs/deploy/ (sealpost.service, sealpost-backup.service and its timer).
 *
 * This machine's systemd is not PID 1, so the units cannot be started here. What is checked:
 * `systemd-analyze verify` accepts them without a single warning (on copies whose
 * `/usr/local/bin/deno` is replaced by the Deno running this test, so that the ExecStart
 * binary exists wherever the test runs; verify refuses a missing one); the settings the
 * deployment relies on are there; and every system call the bundle makes while it serves,
 * takes a submission (which its vault opens and saves) and writes a backup, traced with
 * strace, is one the units' SystemCallFilter allows (so the filter cannot kill Deno), and
 * every socket it opens one of the families RestrictAddressFamilies allows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundle, KIT, operatorEnv, parseUnit, run, setting, waitHealthy } from "./_deploy.ts";
import { freePort } from "../_support/process.ts";

const UNITS = ["sealpost.service", "sealpost-backup.service", "sealpost-backup.timer"];

/** Copies of the units with the Deno path of this machine, in a new folder. */
async function unitCopies(edit: (name: string, text: string) => string = (_, t) => t) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-units-" });
  for (const name of UNITS) {
    const text = (await Deno.readTextFile(join(KIT, name)))
      .replaceAll("/usr/local/bin/deno", Deno.execPath());
    await Deno.writeTextFile(join(dir, name), edit(name, text));
  }
  return dir;
}

async function verify(dir: string) {
  return await run("systemd-analyze", ["verify", "--man=no", ...UNITS.map((u) => join(dir, u))], {
    cwd: dir,
  });
}

Deno.test("deploy units: systemd-analyze verify accepts them without a warning", async () => {
  const dir = await unitCopies();
  try {
    const out = await verify(dir);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stderr.trim(), "", "verify warned");
    // The same check catches a misspelt key (verify only warns, exit 0) and a missing binary.
    const typo = await unitCopies((name, text) =>
      name === "sealpost.service" ? text.replace("ProtectSystem=", "ProtectSystm=") : text
    );
    const warned = await verify(typo);
    assert.match(warned.stderr, /Unknown key 'ProtectSystm'/);
    const missing = await unitCopies((_, text) =>
      text.replaceAll(Deno.execPath(), "/nonexistent/deno")
    );
    assert.notEqual((await verify(missing)).code, 0);
    await Deno.remove(typo, { recursive: true });
    await Deno.remove(missing, { recursive: true });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deploy units: the service's settings (user, sandbox, limits, restart, no MDWE)", async () => {
  const unit = parseUnit(await Deno.readTextFile(join(KIT, "sealpost.service")));
  const s = (key: string) => setting(unit, "Service", key);
  assert.equal(
    s("ExecStart"),
    "/usr/local/bin/deno run -A --unstable-kv /opt/sealpost/sealpost.js serve --data /var/lib/sealpost",
  );
  assert.equal(s("User"), "sealpost");
  assert.equal(s("ProtectSystem"), "strict");
  assert.deepEqual(s("ReadWritePaths")?.split(/\s+/), ["/var/lib/sealpost"]);
  assert.equal(s("NoNewPrivileges"), "yes");
  assert.equal(s("LimitNOFILE"), "65536");
  assert.equal(s("Restart"), "on-failure");
  assert.equal(s("UMask"), "0077");
  assert.equal(s("StateDirectoryMode"), "0700");
  // V8's JIT needs writable-then-executable memory.
  assert.equal(s("MemoryDenyWriteExecute"), undefined);
  assert.equal(setting(unit, "Install", "WantedBy"), "multi-user.target");

  const backup = parseUnit(await Deno.readTextFile(join(KIT, "sealpost-backup.service")));
  assert.equal(setting(backup, "Service", "Type"), "oneshot");
  assert.equal(setting(backup, "Service", "User"), "sealpost");
  assert.match(
    setting(backup, "Service", "ExecStart")!,
    /\/opt\/sealpost\/sealpost\.js backup --data \/var\/lib\/sealpost --out "\/var\/backups\/sealpost\/sealpost-\$\(date /,
  );
  assert.equal(setting(backup, "Service", "MemoryDenyWriteExecute"), undefined);
  const timer = parseUnit(await Deno.readTextFile(join(KIT, "sealpost-backup.timer")));
  assert.equal(setting(timer, "Timer", "OnCalendar"), "daily");
  assert.equal(setting(timer, "Timer", "Persistent"), "true");
  assert.equal(setting(timer, "Install", "WantedBy"), "timers.target");
});

/** Every group of `systemd-analyze syscall-filter`: name → members (calls and @groups). */
async function syscallGroups(): Promise<Map<string, string[]>> {
  const out = await run("systemd-analyze", ["syscall-filter"]);
  assert.equal(out.code, 0, out.stderr);
  const groups = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of out.stdout.split("\n")) {
    if (/^@\S+$/.test(line)) groups.set(line, current = []);
    else if (/^\s+[@a-z0-9_-]+$/.test(line) && current) current.push(line.trim());
    else if (!line.startsWith(" ")) current = null;
  }
  return groups;
}

/** The system calls a SystemCallFilter allow-list (`@group` and names) expands to. */
function expand(items: string[], groups: Map<string, string[]>, into = new Set<string>()) {
  for (const item of items) {
    if (!item.startsWith("@")) into.add(item);
    else if (!into.has(item)) {
      into.add(item);
      expand(groups.get(item) ?? assert.fail(`unknown group ${item}`), groups, into);
    }
  }
  return into;
}

/** The names of the system calls in an strace -f log. */
function tracedCalls(log: string): Set<string> {
  const calls = new Set<string>();
  for (const line of log.split("\n")) {
    const m = /^\d+\s+(?:<\.\.\. )?([a-z0-9_]+)[( ]/.exec(line);
    if (m && !line.includes("+++") && !line.includes("---")) calls.add(m[1]);
  }
  return calls;
}

Deno.test("deploy units: every system call the bundle makes is one SystemCallFilter allows", async () => {
  const file = await bundle();
  const dir = await Deno.makeTempDir({ prefix: "sealpost-strace-" });
  const data = join(dir, "data");
  const port = freePort();
  const env = operatorEnv({
    DENO_DIR: join(dir, "deno"),
    SEALPOST_SERVER_PORT: String(port),
    SEALPOST_SERVER_REQUEST_LOG: "false",
  });
  const deno = ["run", "-A", "--unstable-kv", file];
  const serveLog = join(dir, "serve.strace");
  const serve = new Deno.Command("strace", {
    args: ["-f", "-qq", "-o", serveLog, Deno.execPath(), ...deno, "serve", "--data", data],
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const lines = serve.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let banner = "";
  try {
    while (!/manifest key:\s+\S+/.test(banner)) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`serve ended: ${banner}`);
      banner += value;
    }
    await waitHealthy(`http://127.0.0.1:${port}/healthz`);
    const formId = /demo form id:\s+(\S+)/.exec(banner)![1];
    const pin = /manifest key:\s+(\S+)/.exec(banner)![1];
    const values = JSON.stringify({ name: "Ada", email: "ada@example.com", rating: 5 });
    const submit = await run(Deno.execPath(), [
      ...deno,
      "submit",
      formId,
      "--relay",
      `http://127.0.0.1:${port}`,
      "--pin",
      pin,
      "--values",
      "-",
    ], { env, stdin: values });
    assert.equal(submit.code, 0, submit.stderr);
    const backupLog = join(dir, "backup.strace");
    const backup = await run("strace", [
      "-f",
      "-qq",
      "-o",
      backupLog,
      Deno.execPath(),
      ...deno,
      "backup",
      "--data",
      data,
      "--out",
      join(dir, "backup.tar"),
    ], { env });
    assert.equal(backup.code, 0, backup.stderr);
    // The serving process itself: its pid is the first field of the trace's first line.
    const pid = Number((await Deno.readTextFile(serveLog)).split(/\s/, 1)[0]);
    Deno.kill(pid, "SIGTERM");
    assert.equal((await serve.status).code, 0);

    const groups = await syscallGroups();
    for (
      const [unitName, log] of [["sealpost.service", serveLog], [
        "sealpost-backup.service",
        backupLog,
      ]]
    ) {
      const unit = parseUnit(await Deno.readTextFile(join(KIT, unitName)));
      const filter = unit.get("Service")!.get("SystemCallFilter")!.flatMap((v) => v.split(/\s+/));
      const allowed = expand(filter, groups);
      const calls = tracedCalls(await Deno.readTextFile(log));
      assert.ok(calls.size > 30, `traced ${calls.size} calls`);
      const outside = [...calls].filter((c) => !allowed.has(c));
      assert.deepEqual(outside, [], `${unitName}: calls outside SystemCallFilter`);
      // And every socket it opens is of a family RestrictAddressFamilies= allows.
      const families = new Set(
        [...(await Deno.readTextFile(log)).matchAll(/socket(?:pair)?\((AF_[A-Z0-9]+)/g)].map((m) =>
          m[1]
        ),
      );
      const restricted = setting(unit, "Service", "RestrictAddressFamilies")!.split(/\s+/);
      assert.deepEqual([...families].filter((f) => !restricted.includes(f)), [], unitName);
      // Without @pkey the filter would refuse V8's pkey_alloc.
      if (calls.has("pkey_alloc")) {
        assert.ok(!expand(["@system-service"], groups).has("pkey_alloc"));
      }
    }
  } finally {
    await lines.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
