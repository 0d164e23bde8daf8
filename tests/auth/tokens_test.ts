import assert from "node:assert/strict";
import { authenticate, mintToken, principalOfToken } from "../../src/auth/index.ts";
import { keys, type TokenRow } from "../../src/store/keys.ts";

async function withKv(fn: (kv: Deno.Kv) => Promise<void>) {
  const kv = await Deno.openKv(":memory:");
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

async function stored(kv: Deno.Kv, kind: TokenRow["kind"], userId: string | null) {
  const minted = await mintToken(kind, userId);
  await kv.set(keys.token(minted.row.id), minted.row);
  return minted;
}

Deno.test("mintToken: spo_/spa_ strings; only a SHA-256 of the secret is kept", async () => {
  const { token, row } = await mintToken("owner", "u1");
  assert.match(token, /^spo_[0-9a-f]{24}_[A-Za-z0-9_-]{43}$/);
  assert.equal(token.split("_")[1], row.id);
  assert.match(row.secretHash, /^[0-9a-f]{64}$/);
  assert.equal(token.includes(row.secretHash), false);
  assert.match((await mintToken("admin", null)).token, /^spa_/);
});

Deno.test("authenticate: owner and admin tokens stand for their principals", async () => {
  await withKv(async (kv) => {
    const owner = await stored(kv, "owner", "u1");
    const admin = await stored(kv, "admin", null);
    assert.deepEqual(await authenticate(kv, owner.token), {
      kind: "owner",
      tokenId: owner.row.id,
      userId: "u1",
    });
    assert.deepEqual(await authenticate(kv, admin.token), { kind: "admin", tokenId: admin.row.id });
  });
});

Deno.test("authenticate: revoked, wrong secret, swapped prefix or malformed is nobody", async () => {
  await withKv(async (kv) => {
    const owner = await stored(kv, "owner", "u1");
    const id = owner.row.id;
    const secret = owner.token.slice(`spo_${id}_`.length);
    assert.equal(secret.length, 43);
    const otherSecret = secret.replace(/^./, (ch) => (ch === "A" ? "B" : "A"));
    for (
      const token of [
        `spo_${id}_${otherSecret}`, // wrong secret
        `spa_${id}_${secret}`, // an owner row presented as an admin token
        `spo_${id}_${secret}x`, // malformed
        "spo_bogus",
        "",
      ]
    ) {
      assert.equal(await authenticate(kv, token), null, token);
    }
    await kv.delete(keys.token(owner.row.id)); // revoked
    assert.equal(await authenticate(kv, owner.token), null);
  });
});

Deno.test("authenticate: an owner row without a user stands for nobody", async () => {
  await withKv(async (kv) => {
    const orphan = await stored(kv, "owner", null);
    assert.equal(await authenticate(kv, orphan.token), null);
  });
});

Deno.test("principalOfToken: the principal of a token id while its row exists", async () => {
  await withKv(async (kv) => {
    const owner = await stored(kv, "owner", "u1");
    assert.deepEqual(await principalOfToken(kv, owner.row.id), {
      kind: "owner",
      tokenId: owner.row.id,
      userId: "u1",
    });
    await kv.delete(keys.token(owner.row.id));
    assert.equal(await principalOfToken(kv, owner.row.id), null);
  });
});
