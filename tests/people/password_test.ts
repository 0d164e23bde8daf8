import assert from "node:assert/strict";
import { PYTHON } from "../_support/python.ts";
import { argon2id } from "@noble/hashes/argon2.js";
import { fromBase64, toBase64 } from "../../src/crypto/encoding.ts";
import { Invalid } from "../../src/errors/index.ts";
import {
  ARGON2_PARAMS,
  checkPassword,
  dummyVerify,
  hashPassword,
  stopPasswordHasher,
  verifyPassword,
} from "../../src/people/password.ts";

const PASSWORD = "correct horse battery staple";

/** Runs `body`, then ends the hashing worker (it would keep the test process alive). */
function test(name: string, body: () => Promise<void> | void) {
  Deno.test(`password: ${name}`, async () => {
    try {
      await body();
    } finally {
      stopPasswordHasher();
    }
  });
}

const unb64 = (text: string) => fromBase64(text + "=".repeat((4 - (text.length % 4)) % 4));
const b64 = (bytes: Uint8Array) => toBase64(bytes).replace(/=+$/, "");

test("a hash is an Argon2id PHC string with today's parameters; it verifies, a wrong one not", async () => {
  const phc = await hashPassword(PASSWORD);
  assert.match(phc, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.notEqual(await hashPassword(PASSWORD), phc, "a fresh salt each time");
  assert.deepEqual(await verifyPassword(PASSWORD, phc), { ok: true, rehash: false });
  assert.deepEqual(await verifyPassword(PASSWORD + "!", phc), { ok: false, rehash: false });
  assert.deepEqual(await verifyPassword("", phc), { ok: false, rehash: false });
});

test("interop: @noble/hashes' Argon2id computes the same hash from the PHC string's salt", async () => {
  const phc = await hashPassword(PASSWORD);
  const [, , , , salt, hash] = phc.split("$");
  const { m, t, p } = ARGON2_PARAMS;
  const noble = argon2id(PASSWORD, unb64(salt), { m, t, p, dkLen: 32 });
  assert.equal(b64(noble), hash);
});

test("interop: argon2-cffi (python3-argon2) verifies our hash and we verify its", async () => {
  const python = PYTHON;
  const phc = await hashPassword(PASSWORD);
  const script = `import sys, argon2
ph = argon2.PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1, hash_len=32, salt_len=16)
ph.verify(sys.argv[1], sys.argv[2])
print(ph.hash(sys.argv[2]))`;
  const out = await new Deno.Command(python, { args: ["-c", script, phc, PASSWORD] }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const theirs = new TextDecoder().decode(out.stdout).trim();
  assert.deepEqual(await verifyPassword(PASSWORD, theirs), { ok: true, rehash: false });
});

test("a hash with other parameters verifies and asks for a rehash; a wrong password does not", async () => {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const old = argon2id(PASSWORD, salt, { m: 4096, t: 3, p: 1, dkLen: 32 });
  const phc = `$argon2id$v=19$m=4096,t=3,p=1$${b64(salt)}$${b64(old)}`;
  assert.deepEqual(await verifyPassword(PASSWORD, phc), { ok: true, rehash: true });
  assert.deepEqual(await verifyPassword("another password", phc), { ok: false, rehash: false });
});

test("passwords are NFC normalised: composed and decomposed forms are one password", async () => {
  const composed = "caf\u00e9 au lait sans sucre";
  const decomposed = "cafe\u0301 au lait sans sucre";
  const phc = await hashPassword(decomposed);
  assert.deepEqual(await verifyPassword(composed, phc), { ok: true, rehash: false });
  assert.equal(checkPassword(decomposed), composed);
});

test("rules: 12 to 1024 characters (code points after NFC), nothing else; plain words", () => {
  assert.equal(checkPassword("a".repeat(12)), "a".repeat(12));
  assert.equal(checkPassword("🔑".repeat(12)), "🔑".repeat(12), "12 emoji are 12 characters");
  assert.equal(checkPassword("x".repeat(1024)).length, 1024);
  for (const weak of ["", "short", "a".repeat(11), "e\u0301".repeat(11), "x".repeat(1025)]) {
    assert.throws(() => checkPassword(weak), (err: unknown) => {
      assert.ok(err instanceof Invalid);
      assert.equal(err.code, "weak_password");
      assert.equal(err.field, "password");
      assert.match(err.message, /^Choose a password of at (least 12|most 1024) characters/);
      return true;
    });
  }
});

test("hashPassword refuses a password that breaks the rules", async () => {
  await assert.rejects(hashPassword("too short"), Invalid);
});

test("a stored value that is not an Argon2id PHC string never matches", async () => {
  const good = await hashPassword(PASSWORD);
  for (
    const bad of [
      "",
      "plain",
      good.replace("argon2id", "argon2i"),
      good.replace("v=19", "v=16"),
      good.replace("m=19456", "m=99999999"),
      good.replace("t=2", "t=0"),
      good.slice(0, -10),
    ]
  ) {
    assert.deepEqual(await verifyPassword(PASSWORD, bad), { ok: false, rehash: false }, bad);
  }
});

test("dummyVerify runs a real Argon2id hash, as a verification does (no shortcut to time)", async () => {
  // Only a lower bound: a timing ratio is noise on a loaded machine (bench/password.ts
  // measures the costs side by side). A hash at these parameters takes tens of milliseconds;
  // an answer without one takes well under a millisecond.
  const t0 = performance.now();
  await dummyVerify("wrong password here");
  const dummy = performance.now() - t0;
  assert.ok(dummy > 20, `dummyVerify took ${dummy} ms`);
});

test("hashes asked at once are all answered, by one worker, none mixed up", async () => {
  const passwords = Array.from({ length: 6 }, (_, i) => `password number ${i} is long`);
  const hashes = await Promise.all(passwords.map((p) => hashPassword(p)));
  const checks = await Promise.all(hashes.map((h, i) => verifyPassword(passwords[i], h)));
  assert.ok(checks.every((c) => c.ok));
  assert.equal((await verifyPassword(passwords[0], hashes[1])).ok, false);
});
