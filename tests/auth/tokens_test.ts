import assert from "node:assert/strict";
import { authenticate, mintToken } from "../../src/auth/index.ts";
import type { ApiToken } from "../../src/store/ports/identity.ts";

/** Token rows by id, as the identity port keeps them (deleting one revokes it). */
class Tokens extends Map<string, ApiToken> {
  getToken(id: string): Promise<ApiToken | null> {
    return Promise.resolve(this.get(id) ?? null);
  }
}

async function withTokens(fn: (tokens: Tokens) => Promise<void>) {
  await fn(new Tokens());
}

async function stored(tokens: Tokens, kind: ApiToken["kind"], userId: string | null) {
  const minted = await mintToken(kind, userId);
  tokens.set(minted.row.id, minted.row);
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
  await withTokens(async (tokens) => {
    const owner = await stored(tokens, "owner", "u1");
    const admin = await stored(tokens, "admin", null);
    assert.deepEqual(await authenticate(tokens, owner.token), {
      kind: "owner",
      tokenId: owner.row.id,
      userId: "u1",
    });
    assert.deepEqual(await authenticate(tokens, admin.token), {
      kind: "admin",
      tokenId: admin.row.id,
    });
  });
});

Deno.test("authenticate: revoked, wrong secret, swapped prefix or malformed is nobody", async () => {
  await withTokens(async (tokens) => {
    const owner = await stored(tokens, "owner", "u1");
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
      assert.equal(await authenticate(tokens, token), null, token);
    }
    tokens.delete(owner.row.id); // revoked
    assert.equal(await authenticate(tokens, owner.token), null);
  });
});

Deno.test("authenticate: spt_ (a person's relay:queue token) stands for its owner row only", async () => {
  await withTokens(async (tokens) => {
    const owner = await stored(tokens, "owner", "u1");
    const admin = await stored(tokens, "admin", null);
    const asPerson = owner.token.replace(/^spo_/, "spt_");
    assert.deepEqual(await authenticate(tokens, asPerson), {
      kind: "owner",
      tokenId: owner.row.id,
      userId: "u1",
    });
    assert.equal(await authenticate(tokens, admin.token.replace(/^spa_/, "spt_")), null);
  });
});

Deno.test("authenticate: an owner row without a user stands for nobody", async () => {
  await withTokens(async (tokens) => {
    const orphan = await stored(tokens, "owner", null);
    assert.equal(await authenticate(tokens, orphan.token), null);
  });
});
