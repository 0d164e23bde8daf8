/**
 * The sign-in steps and a person's own changes (src/people/sign_in.ts, security.ts) on Deno KV
 * in memory: what each answers and the audit events it writes — never a password, an email
 * or a code.
 */
import assert from "node:assert/strict";
import type { AuditEvent } from "../../src/audit/sink.ts";
import type { Config } from "../../src/config/index.ts";
import { hashPassword, stopPasswordHasher } from "../../src/people/password.ts";
import { Security } from "../../src/people/security.ts";
import { SignIn } from "../../src/people/sign_in.ts";
import { SignInLimits } from "../../src/people/sign_in_limits.ts";
import { issueTicket } from "../../src/people/tickets.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import type { RateLimitPort } from "../../src/store/ports/rate_limits.ts";
import { totpCode } from "../console/_client.ts";

const PASSWORD = "correct horse battery staple";
const EMAIL = "ada@example.org";

async function setUp() {
  const kv = await Deno.openKv(":memory:");
  const ports = vaultKvPorts(kv);
  const events: AuditEvent[] = [];
  const audit = { record: (event: AuditEvent) => void events.push(event) };
  const off = { enabled: false } as Config["rate_limits"];
  const limits = new SignInLimits({} as RateLimitPort, off);
  const deps = { people: ports.people, factors: ports.signInFactors, tickets: ports.tickets };
  const signIn = new SignIn({ ...deps, limits, audit });
  const security = new Security({ ...deps, audit });
  const now = new Date().toISOString();
  await ports.people.create({
    id: "p1",
    email: EMAIL,
    name: "Ada",
    passwordHash: await hashPassword(PASSWORD),
    instanceAdmin: false,
    createdAt: now,
    updatedAt: now,
  });
  return { kv, ports, events, signIn, security };
}

Deno.test("sign-in steps and Security changes write their audit events, never a secret", async () => {
  const { kv, ports, events, signIn, security } = await setUp();
  const who = { personId: "p1", tokenId: null };
  try {
    assert.deepEqual(await signIn.password("nobody@example.org", PASSWORD, "192.0.2.1"), {
      kind: "refused",
    });
    assert.deepEqual(await signIn.password(EMAIL, "wrong one", "192.0.2.1"), { kind: "refused" });
    const plain = await signIn.password(EMAIL.toUpperCase(), PASSWORD, "192.0.2.1");
    assert.equal(plain.kind, "signed_in");

    const secret = security.newTotpSecret();
    await assert.rejects(security.addTotp(who, secret, "000000"), /not right/);
    const codes = await security.addTotp(who, secret, totpCode(secret));
    assert.equal(codes?.length, 10);

    const step = await signIn.password(EMAIL, PASSWORD, "192.0.2.1");
    assert.equal(step.kind, "second_step");
    if (step.kind !== "second_step") return;
    assert.deepEqual((await signIn.pendingStep(step.ticket))?.factors, {
      totp: true,
      passkeys: 0,
      recoveryCodes: 10,
    });
    const done = await signIn.secondFactor(step.ticket, { recovery: codes![0] }, "192.0.2.1");
    assert.equal(done.kind, "signed_in");
    assert.equal(await ports.signInFactors.recoveryCodesLeft("p1"), 9);
    // The ticket was used up.
    const again = await signIn.secondFactor(step.ticket, { recovery: codes![1] }, "192.0.2.1");
    assert.equal(again.kind, "refused");

    await security.changePassword(who, PASSWORD, "another long password");
    await assert.rejects(security.changePassword(who, "wrong", "x".repeat(20)), /not right/);
    await security.removeTotp(who);
    assert.equal(await ports.signInFactors.recoveryCodesLeft("p1"), 0, "no factor, no codes");
    const link = await issueTicket(ports.tickets, "set_password", "p1", {}, 60_000);
    assert.ok(await signIn.setPassword(link, "a third long password"));
    assert.equal(await signIn.setPassword(link, "a fourth long password"), null, "once");

    assert.deepEqual(events.map((e) => [e.action, e.personId, e.detail?.reason ?? null]), [
      ["sign_in_failed", null, "password"],
      ["sign_in_failed", "p1", "password"],
      ["sign_in", "p1", null],
      ["second_factor_added", "p1", null],
      ["recovery_code_used", "p1", null],
      ["sign_in", "p1", null],
      ["password_set", "p1", null],
      ["second_factor_removed", "p1", null],
      ["password_set", "p1", null],
    ]);
    const text = JSON.stringify(events);
    for (const secretText of [PASSWORD, EMAIL, "nobody", secret, codes![0], "another long"]) {
      assert.ok(!text.includes(secretText), `no ${secretText} in the audit`);
    }
  } finally {
    kv.close();
    stopPasswordHasher();
  }
});
