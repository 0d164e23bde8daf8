/**
 * The relay links' blob read URLs: one suite over both implementations (HTTP, as a
 * `vault`-role process uses it, and in-process, as role `all` does), then the HTTP link's
 * failures and the vault's lookup through the form's database.
 */
import assert from "node:assert/strict";
import { UpstreamFailed } from "../../src/errors/index.ts";
import { httpError } from "../../src/http/errors.ts";
import { HttpRelayLink, type RelayLink } from "../../src/vault/index.ts";
import { freePort } from "../_support/process.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";
import { random, sha256 } from "../blobs/_helpers.ts";
import { otherUser, slot, upload } from "../blobs/_http.ts";

/** Asserts `link.blobReadUrl` gives a working URL of `bytes` that lives `lifetime` seconds. */
async function assertReadUrl(
  link: RelayLink,
  userId: string,
  bytes: Uint8Array,
  lifetime: number,
  origin: string,
) {
  const hash = sha256(bytes);
  const before = Math.floor(Date.now() / 1000);
  const read = await link.blobReadUrl(userId, hash, lifetime);
  const after = Math.ceil(Date.now() / 1000);
  assert.ok(read, "a stored file has a read URL");
  const url = new URL(read.url);
  assert.equal(url.origin, origin);
  assert.equal(url.pathname, `/blobs/${userId}/${hash}`);
  const expires = Number(url.searchParams.get("expires"));
  assert.ok(
    expires >= before + lifetime && expires <= after + lifetime,
    `expires ${expires}, asked ${lifetime} s from ${before}`,
  );
  assert.equal(Date.parse(read.expiresAtUtc), expires * 1000);
  const got = await fetch(read.url);
  assert.equal(got.status, 200);
  assert.deepEqual(await got.bytes(), bytes);
}

Deno.test("relay links: blobReadUrl gives a fresh URL of the asked lifetime, readBlob the bytes; an unknown file is null", async (t) => {
  const inst = await startInstance();
  try {
    const bytes = random(700_000);
    assert.equal((await upload(inst, bytes, { mime: "image/png" })).put.status, 201);
    const userId = inst.credentials.userId;
    const links: [string, RelayLink][] = [
      ["HttpRelayLink", new HttpRelayLink(`${inst.url}/`, inst.credentials.ownerToken)],
      ["LocalRelayLink", inst.server.vault!.link],
    ];
    for (const [name, link] of links) {
      await t.step(name, async () => {
        await assertReadUrl(link, userId, bytes, 7200, inst.url);
        await assertReadUrl(link, userId, bytes, 2592000, inst.url);
        assert.equal(await link.blobReadUrl(userId, sha256(random(8)), 7200), null);
        // In-process (role all) straight from the blob store, else over a read URL.
        const stream = await link.readBlob(userId, sha256(bytes));
        assert.ok(stream, "a stored file is read");
        assert.deepEqual(new Uint8Array(await new Response(stream).arrayBuffer()), bytes);
        assert.equal(await link.readBlob(userId, sha256(random(8))), null);
      });
    }
  } finally {
    await inst.close();
  }
});

Deno.test("HttpRelayLink.blobReadUrl: null only for blob_not_found; other failures throw", async () => {
  const inst = await startInstance();
  const notRelay = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ error: { code: "not_found", message: "No route" } }, { status: 404 }),
  );
  try {
    const bytes = random(100);
    await upload(inst, bytes);
    const hash = sha256(bytes);
    const link = new HttpRelayLink(inst.url, inst.credentials.ownerToken);
    const expectError = async (promise: Promise<unknown>, status: number, code: string) => {
      await assert.rejects(promise, (err) => {
        assert.ok(err instanceof UpstreamFailed, String(err));
        assert.equal(httpError(err)?.status, status);
        assert.equal(err.code, code);
        return true;
      });
    };
    // Another relay user's files are not this token's to read.
    const other = await otherUser(inst);
    assert.equal(await link.blobReadUrl(other.id, hash, 60), null);
    // The relay refuses a lifetime out of its range.
    await expectError(link.blobReadUrl(inst.credentials.userId, hash, 0), 400, "invalid_request");
    await expectError(
      new HttpRelayLink(inst.url, "spo_bogus").blobReadUrl(inst.credentials.userId, hash, 60),
      401,
      "unauthorized",
    );
    // A 404 that is not the relay's blob_not_found (no such route) is no answer either.
    const wrong = new HttpRelayLink(`http://127.0.0.1:${notRelay.addr.port}`, "t");
    await expectError(wrong.blobReadUrl(inst.credentials.userId, hash, 60), 404, "not_found");
    const down = new HttpRelayLink(`http://127.0.0.1:${freePort()}`, "t", 2000);
    await expectError(
      down.blobReadUrl(inst.credentials.userId, hash, 60),
      502,
      "relay_unreachable",
    );
    await expectError(down.readBlob(inst.credentials.userId, hash), 502, "relay_unreachable");
  } finally {
    await notRelay.shutdown();
    await inst.close();
  }
});

Deno.test("vault.files.url: plain files through the form's database to the relay; unknown form is null", async () => {
  const inst = await startInstance();
  try {
    const vault = inst.server.vault!;
    const { form } = await vaultForm(inst, "Files", [
      { id: "file", label: "File", kind: "attachment" },
    ]);
    const bytes = random(700);
    await upload(inst, bytes, { mime: "application/pdf" });
    const before = Math.floor(Date.now() / 1000);
    const ref = (hash: string) => ({ url: "https://x.example/", hash, owned: true as const });
    const read = await vault.files.url(form.formId, ref(sha256(bytes)), 600);
    assert.ok(read);
    const expires = Number(new URL(read).searchParams.get("expires"));
    assert.ok(expires >= before + 600 && expires <= Math.ceil(Date.now() / 1000) + 600);
    assert.deepEqual(await (await fetch(read)).bytes(), bytes);
    assert.equal(await vault.files.url(form.formId, ref(sha256(random(4))), 600), null);
    assert.equal(await vault.files.url("no_such_form", ref(sha256(bytes)), 600), null);
  } finally {
    await inst.close();
  }
});

Deno.test("relay links: claim and release count per claimant, over HTTP and in-process", async (t) => {
  const inst = await startInstance();
  try {
    const userId = inst.credentials.userId;
    const links: [string, RelayLink][] = [
      ["HttpRelayLink", new HttpRelayLink(inst.url, inst.credentials.ownerToken)],
      ["LocalRelayLink", inst.server.vault!.link],
    ];
    for (const [name, link] of links) {
      await t.step(name, async () => {
        const bytes = random(500);
        const hash = sha256(bytes);
        assert.equal((await upload(inst, bytes)).put.status, 201);
        const stillClaimed = async () =>
          (await inst.server.blobs!.claim(userId, [hash], "probe")).claimed.length === 1 &&
          (await inst.server.blobs!.release(userId, [hash], "probe")).unclaimed.length === 0;
        await link.claim(userId, [hash], "fA/r1");
        await link.claim(userId, [hash], "fA/r2");
        await link.release(userId, [hash], "fA/r1");
        assert.ok(await stillClaimed(), "still claimed by fA/r2");
        await link.release(userId, [hash], "fA/r2");
        const { unclaimed } = await inst.server.blobs!.release(userId, [hash], "fA/r2");
        assert.deepEqual(unclaimed, [], "released already");
        const again = await inst.server.blobs!.claim(userId, [hash], "probe");
        assert.deepEqual(again.claimed, [hash]);
        assert.deepEqual(
          (await inst.server.blobs!.release(userId, [hash], "probe")).unclaimed,
          [hash],
          "the probe was the only claim left",
        );
      });
    }
  } finally {
    await inst.close();
  }
});

Deno.test("relay links: claim answers the hashes the relay does not store for the user", async (t) => {
  const inst = await startInstance();
  try {
    const bytes = random(500);
    assert.equal((await upload(inst, bytes)).put.status, 201);
    const other = await otherUser(inst);
    const foreign = random(600);
    const granted = await slot(inst, { recipientUserId: other.id, hash: sha256(foreign) });
    assert.equal((await call(granted.body.url, { method: "PUT", body: foreign })).status, 201);
    const never = sha256(random(9));
    const links: [string, RelayLink][] = [
      ["HttpRelayLink", new HttpRelayLink(inst.url, inst.credentials.ownerToken)],
      ["LocalRelayLink", inst.server.vault!.link],
    ];
    for (const [name, link] of links) {
      await t.step(name, async () => {
        const userId = inst.credentials.userId;
        // Another user's file is as missing as one never uploaded.
        const missing = await link.claim(userId, [sha256(bytes), never, sha256(foreign)], "probe");
        assert.deepEqual(missing.sort(), [never, sha256(foreign)].sort());
        assert.deepEqual(await link.claim(userId, [sha256(bytes)], "probe"), []);
      });
    }
  } finally {
    await inst.close();
  }
});
