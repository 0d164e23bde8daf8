import assert from "node:assert/strict";
import { missing, planFor, type Requirement, REQUIREMENTS } from "./preflight.ts";

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
