/**
 * The contract of the sign-in factors port (src/store/ports/sign_in_factors.ts), for any
 * implementation: passkeys, TOTP and recovery codes, and the races of their single uses across
 * two handles on one store.
 */
import assert from "node:assert/strict";
import { contractTests, type MakePort } from "./_suite.ts";
import type {
  Passkey,
  SignInFactorsPort,
  TotpFactor,
} from "../../../src/store/ports/sign_in_factors.ts";

/** Concurrent callers in each race. */
const RACERS = 8;

function passkey(personId: string, credentialId: string, createdAt: string): Passkey {
  return {
    credentialId,
    personId,
    publicKey: "pQECAyYgASFYIA",
    counter: 0,
    transports: ["internal", "hybrid"],
    deviceType: "multiDevice",
    backedUp: true,
    name: `key ${credentialId}`,
    createdAt,
    lastUsedAt: null,
  };
}

const totp: TotpFactor = {
  secret: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
  lastStep: null,
  createdAt: "2030-01-01T00:00:00.000Z",
};

const hashes = (tag: string) =>
  Array.from({ length: 10 }, (_, i) => `${tag}${i}`.padEnd(64, "0").slice(0, 64));

/** Runs `racers` calls at once, half on each handle, and counts the true answers. */
async function race(
  port: SignInFactorsPort,
  second: SignInFactorsPort,
  call: (p: SignInFactorsPort) => Promise<boolean>,
): Promise<number> {
  const results = await Promise.all(
    Array.from({ length: RACERS }, (_, i) => call(i % 2 === 0 ? port : second)),
  );
  return results.filter(Boolean).length;
}

/** Registers the sign-in factors contract's tests for implementation `name`. */
export function signInFactorsContract(name: string, make: MakePort<SignInFactorsPort>): void {
  const test = contractTests<SignInFactorsPort>("sign-in factors", name, make);

  test("passkeys: added once per credential id, found, listed oldest first, removed by their person", async (p) => {
    const a = passkey("p1", "cred-b", "2030-01-01T00:00:01.000Z");
    const b = passkey("p1", "cred-a", "2030-01-01T00:00:02.000Z");
    assert.equal(await p.add(a), "added");
    assert.equal(await p.add(b), "added");
    assert.equal(await p.add(passkey("p2", "cred-c", "2030-01-01T00:00:03.000Z")), "added");
    assert.equal(await p.add({ ...a, personId: "p2" }), "taken", "an id is the instance's");
    assert.deepEqual(await p.byCredentialId("cred-b"), a);
    assert.equal(await p.byCredentialId("nope"), null);
    assert.deepEqual(await p.list("p1"), [a, b]);
    assert.deepEqual(await p.list("p3"), []);
    assert.equal(await p.remove("p2", "cred-b"), false, "not p2's");
    assert.equal(await p.remove("p1", "cred-b"), true);
    assert.equal(await p.remove("p1", "cred-b"), false);
    assert.equal(await p.byCredentialId("cred-b"), null);
    assert.deepEqual(await p.list("p1"), [b]);
    assert.equal(await p.add(a), "added", "a removed id can be registered again");
  });

  test("passkeys: the counter only goes up (0 stays 0 for authenticators without one)", async (p) => {
    await p.add(passkey("p1", "zero", "2030-01-01T00:00:00.000Z"));
    assert.equal(await p.updateCounter("zero", 0, "2030-01-02T00:00:00.000Z"), true);
    assert.equal((await p.byCredentialId("zero"))!.lastUsedAt, "2030-01-02T00:00:00.000Z");
    assert.equal(await p.updateCounter("zero", 5, "2030-01-03T00:00:00.000Z"), true);
    assert.equal(await p.updateCounter("zero", 5, "2030-01-04T00:00:00.000Z"), false, "same");
    assert.equal(await p.updateCounter("zero", 4, "2030-01-04T00:00:00.000Z"), false, "lower");
    assert.equal(await p.updateCounter("zero", 0, "2030-01-04T00:00:00.000Z"), false, "reset");
    const stored = (await p.byCredentialId("zero"))!;
    assert.equal(stored.counter, 5);
    assert.equal(stored.lastUsedAt, "2030-01-03T00:00:00.000Z");
    assert.equal(await p.updateCounter("zero", 6, "2030-01-05T00:00:00.000Z"), true);
    assert.equal((await p.list("p1"))[0].counter, 6);
    assert.equal(await p.updateCounter("missing", 1, "2030-01-05T00:00:00.000Z"), false);
  });

  test("race: one counter value signs in once across two handles", async (p, q) => {
    await p.add({ ...passkey("p1", "raced", "2030-01-01T00:00:00.000Z"), counter: 10 });
    for (const counter of [11, 12, 13]) {
      const won = await race(p, q, (port) => port.updateCounter("raced", counter, "2030-01-02"));
      assert.equal(won, 1, `counter ${counter}`);
    }
    assert.equal((await q.byCredentialId("raced"))!.counter, 13);
  });

  test("TOTP: set, read, replaced, cleared; a step is used once and only upward", async (p) => {
    assert.equal(await p.getTotp("p1"), null);
    assert.equal(await p.useTotpStep("p1", 100), false, "no factor");
    await p.setTotp("p1", totp);
    assert.deepEqual(await p.getTotp("p1"), totp);
    assert.equal(await p.useTotpStep("p1", 100), true);
    assert.equal(await p.useTotpStep("p1", 100), false);
    assert.equal(await p.useTotpStep("p1", 99), false);
    assert.equal(await p.useTotpStep("p1", 102), true);
    assert.deepEqual(await p.getTotp("p1"), { ...totp, lastStep: 102 });
    const fresh = { ...totp, secret: "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU" };
    await p.setTotp("p1", fresh);
    assert.deepEqual(await p.getTotp("p1"), fresh);
    assert.equal(await p.getTotp("p2"), null);
    await p.clearTotp("p1");
    await p.clearTotp("p1");
    assert.equal(await p.getTotp("p1"), null);
  });

  test("race: one TOTP step is used once across two handles", async (p, q) => {
    await p.setTotp("p1", totp);
    for (const step of [500, 501]) {
      assert.equal(await race(p, q, (port) => port.useTotpStep("p1", step)), 1, `step ${step}`);
    }
    assert.equal((await q.getTotp("p1"))!.lastStep, 501);
  });

  test("recovery codes: each used once, only by its person; replaced as a whole", async (p) => {
    const first = hashes("a");
    assert.equal(await p.recoveryCodesLeft("p1"), 0);
    assert.equal(await p.useRecoveryCode("p1", first[0]), false);
    await p.setRecoveryCodes("p1", first);
    assert.equal(await p.recoveryCodesLeft("p1"), 10);
    assert.equal(await p.useRecoveryCode("p2", first[0]), false, "another person's");
    assert.equal(await p.useRecoveryCode("p1", first[0]), true);
    assert.equal(await p.useRecoveryCode("p1", first[0]), false, "used");
    assert.equal(await p.recoveryCodesLeft("p1"), 9);
    const second = hashes("b");
    await p.setRecoveryCodes("p1", second);
    assert.equal(await p.recoveryCodesLeft("p1"), 10);
    assert.equal(await p.useRecoveryCode("p1", first[1]), false, "the old list is gone");
    assert.equal(await p.useRecoveryCode("p1", second[1]), true);
    await p.setRecoveryCodes("p1", []);
    assert.equal(await p.recoveryCodesLeft("p1"), 0);
    assert.equal(await p.useRecoveryCode("p1", second[2]), false);
  });

  test(
    "race: one recovery code is used once across two handles; different codes all",
    async (p, q) => {
      const list = hashes("r");
      await p.setRecoveryCodes("p1", list);
      assert.equal(await race(p, q, (port) => port.useRecoveryCode("p1", list[0])), 1);
      const results = await Promise.all(
        list.slice(1).map((hash, i) => (i % 2 ? p : q).useRecoveryCode("p1", hash)),
      );
      assert.ok(results.every(Boolean));
      assert.equal(await p.recoveryCodesLeft("p1"), 0);
    },
  );

  test("race: two replacements at once leave one whole list, not a mix", async (p, q) => {
    await Promise.all([
      p.setRecoveryCodes("p1", hashes("x")),
      q.setRecoveryCodes("p1", hashes("y")),
    ]);
    assert.equal(await p.recoveryCodesLeft("p1"), 10);
    const xs = await Promise.all(hashes("x").map((h) => p.useRecoveryCode("p1", h)));
    assert.ok(xs.every(Boolean) || xs.every((x) => !x), "all of one list");
  });
}
