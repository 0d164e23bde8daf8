import assert from "node:assert/strict";
import {
  type Host,
  missing,
  planFor,
  preflight,
  type Requirement,
  REQUIREMENTS,
} from "./preflight.ts";

const need = (debianPackage: string, there: boolean): Requirement => ({
  what: `${debianPackage} thing`,
  debianPackage,
  present: () => Promise.resolve(there),
});

Deno.test("preflight: missing keeps the absent requirements, in order", async () => {
  const absent = await missing([need("a", false), need("b", true), need("c", false)]);
  assert.deepEqual(absent.map((r) => r.debianPackage), ["a", "c"]);
});

Deno.test("preflight: nothing missing does nothing", () => {
  assert.deepEqual(planFor([], { root: false, apt: true }), { action: "none" });
});

Deno.test("preflight: root with apt-get installs, after apt-get update", () => {
  const plan = planFor([need("chromium", false), need("python3-nacl", false)], {
    root: true,
    apt: true,
  });
  assert.deepEqual(plan, {
    action: "install",
    commands: [
      ["apt-get", "update"],
      ["apt-get", "install", "-y", "--no-install-recommends", "chromium", "python3-nacl"],
    ],
  });
});

Deno.test("preflight: not root stops with the exact sudo command", () => {
  const plan = planFor([need("python3-nacl", false), need("python3-nacl", false)], {
    root: false,
    apt: true,
  });
  assert.equal(plan.action, "stop");
  const message = (plan as { message: string }).message;
  assert.match(message, /python3-nacl thing: Debian package python3-nacl/);
  assert.ok(
    message.endsWith(
      "\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends python3-nacl",
    ),
    message,
  );
});

Deno.test("preflight: without apt-get it names the packages and the path overrides", () => {
  const plan = planFor([need("chromium", false)], { root: true, apt: false });
  assert.equal(plan.action, "stop");
  assert.match((plan as { message: string }).message, /on Debian: chromium\), or point/);
});

Deno.test("preflight: on this machine every requirement is met and the script exits 0", async () => {
  assert.deepEqual(await missing(REQUIREMENTS), []);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./preflight.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.equal(new TextDecoder().decode(out.stderr), "");
});

/** A fake machine: records commands and lines; `install` makes the named packages present. */
function fakeHost(root: boolean, installed: Set<string>, failing?: string) {
  const ran: string[] = [];
  const said: string[] = [];
  const host: Host = {
    root,
    apt: true,
    exec: (command) => {
      ran.push(command.join(" "));
      if (failing && command.includes(failing)) return Promise.resolve(100);
      if (command.includes("install")) command.slice(4).forEach((p) => installed.add(p));
      return Promise.resolve(0);
    },
    say: (line) => said.push(line),
  };
  return { host, ran, said };
}

const needs = (installed: Set<string>, ...packages: string[]): Requirement[] =>
  packages.map((debianPackage) => ({
    what: `${debianPackage} thing`,
    debianPackage,
    present: () => Promise.resolve(installed.has(debianPackage)),
  }));

Deno.test("preflight: as root it runs apt-get update, then install, and checks again", async () => {
  const installed = new Set(["nodejs"]);
  const { host, ran, said } = fakeHost(true, installed);
  assert.equal(await preflight(needs(installed, "chromium", "nodejs", "python3-nacl"), host), 0);
  assert.deepEqual(ran, [
    "apt-get update",
    "apt-get install -y --no-install-recommends chromium python3-nacl",
  ]);
  assert.deepEqual(said, ["Installing what the tests need: chromium python3-nacl"]);
});

Deno.test("preflight: a failing apt-get, or a package that does not help, exits 1", async () => {
  const broken = fakeHost(true, new Set(), "update");
  assert.equal(await preflight(needs(new Set(), "chromium"), broken.host), 1);
  assert.deepEqual(broken.ran, ["apt-get update"]);
  assert.equal(broken.said.at(-1), '"apt-get update" failed (exit 100)');

  const useless = fakeHost(true, new Set());
  const never: Requirement[] = [{ ...need("chromium", false) }];
  assert.equal(await preflight(never, useless.host), 1);
  assert.equal(useless.said.at(-1), "Still missing after the install: chromium thing");
});

Deno.test("preflight: not root it runs nothing and prints the command", async () => {
  const { host, ran, said } = fakeHost(false, new Set());
  assert.equal(await preflight(needs(new Set(), "python3-nacl"), host), 1);
  assert.deepEqual(ran, []);
  assert.equal(said.length, 1);
  assert.match(said[0], /sudo apt-get update && sudo apt-get install -y/);
});
