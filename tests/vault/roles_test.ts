/**
 * Split roles over real processes: a relay and a vault with separate data dirs, a webhook of
 * the vault carrying a relay read URL of an uploaded file, and a vault killed with SIGKILL in
 * the middle of ingesting 1,000 envelopes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  buildEnvelope,
  buildPayload,
  fetchManifest,
  type Manifest,
  seal,
  submitForm,
} from "../../src/sdk/mod.ts";
import { freePort, waitFor } from "../_support/process.ts";
import { call } from "../_support/server.ts";
import { startReceiver } from "../webhooks/_harness.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

interface Proc {
  url: string;
  child: Deno.ChildProcess;
  stop(signal?: Deno.Signal): Promise<void>;
}

async function spawn(args: string[], env: Record<string, string> = {}): Promise<Proc> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN, "serve", "--port", String(port), ...args],
    env: {
      SEALPOST_RATE_LIMITS_ENABLED: "false",
      SEALPOST_SERVER_REQUEST_LOG: "false",
      SEALPOST_VAULT_POLL_INTERVAL_SECONDS: "0.2",
      ...env,
    },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/healthz`);
  return {
    url,
    child,
    stop: async (signal: Deno.Signal = "SIGTERM") => {
      try {
        child.kill(signal);
      } catch { /* gone */ }
      await child.status;
    },
  };
}

async function credentials(dir: string): Promise<{ userId: string; ownerToken: string }> {
  return JSON.parse(await Deno.readTextFile(join(dir, "credentials.json")));
}

async function ownerToken(dir: string): Promise<string> {
  return (await credentials(dir)).ownerToken;
}

/** Waits for the vault's first-run demo form, then returns its signed manifest via the relay. */
async function demo(vault: Proc, vaultDir: string, relayUrl: string) {
  const token = await ownerToken(vaultDir);
  let formId = "";
  for (let i = 0; i < 200 && !formId; i++) {
    const forms = await call(`${vault.url}/vault/forms`, { token });
    if (forms.body?.items?.[0]?.publishedVersion) formId = forms.body.items[0].formId;
    else await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(formId, "the vault published its demo form");
  const pin = (await call(`${vault.url}/vault/manifest-key`, { token })).body.fingerprint;
  return { token, formId, manifest: await fetchManifest(formId, { relayUrl, pin }) };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await filesUnder(path));
    else out.push(path);
  }
  return out;
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

async function submitMany(manifest: Manifest, relayUrl: string, count: number) {
  const ids: string[] = [];
  const stale: string[] = [];
  for (let start = 0; start < count; start += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - start) }, async (_, k) => {
      const i = start + k;
      // Every tenth names a schema version the vault never archived: it must be quarantined.
      const version = i % 10 === 9 ? { ...manifest, schemaVersion: 7 } : manifest;
      const payload = buildPayload(version, { name: `n${i}`, email: `u${i}@example.com` });
      const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey));
      const res = await call(`${relayUrl}/submissions`, { method: "POST", json: envelope });
      assert.equal(res.status, 200);
      ids.push(envelope.submissionId);
      if (i % 10 === 9) stale.push(envelope.submissionId);
    }));
  }
  return { ids, stale };
}

Deno.test("split roles: relay and vault processes; the relay's data dir holds no private key", async () => {
  const relayDir = await Deno.makeTempDir({ prefix: "sealpost-relay-" });
  const vaultDir = await Deno.makeTempDir({ prefix: "sealpost-vault-" });
  const relay = await spawn(["--role", "relay", "--data", relayDir]);
  let vault: Proc | null = null;
  try {
    vault = await spawn(["--role", "vault", "--relay", relay.url, "--data", vaultDir], {
      SEALPOST_RELAY_TOKEN: await ownerToken(relayDir),
    });
    const { token, formId, manifest } = await demo(vault, vaultDir, relay.url);
    assert.equal(manifest.relayUrl, relay.url);
    const { ids } = await submitMany(manifest, relay.url, 5);
    const seen = await (async () => {
      for (let i = 0; i < 200; i++) {
        const res = await call(`${vault!.url}/vault/forms/${formId}/records?limit=100`, { token });
        if (res.body.items.length >= 5) return res.body.items;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("The records did not arrive");
    })();
    assert.equal(seen.length, 5);
    for (const record of seen) assert.ok(ids.includes(record._recordId));
    const quarantined = await call(`${vault.url}/vault/quarantine`, { token });
    assert.equal(quarantined.body.items.length, 0);
    // The vault is no relay, and the relay has no vault.
    assert.equal(
      (await call(`${vault.url}/submissions`, { method: "POST", json: {} })).status,
      404,
    );
    assert.equal((await call(`${relay.url}/vault/forms`, { token })).status, 404);
    await vault.stop();
    await relay.stop();

    const secrets: Uint8Array[] = [];
    for (const path of await filesUnder(join(vaultDir, "vault", "keys"))) {
      const key = JSON.parse(await Deno.readTextFile(path));
      secrets.push(Uint8Array.fromBase64(key.secretKey), new TextEncoder().encode(key.secretKey));
    }
    assert.equal(secrets.length, 4, "one database key and the manifest key");
    const relayFiles = await filesUnder(relayDir);
    assert.ok(!relayFiles.some((p) => p.includes(`${relayDir}/vault`)));
    for (const path of relayFiles) {
      const bytes = await Deno.readFile(path);
      for (const secret of secrets) assert.ok(!contains(bytes, secret), `secret found in ${path}`);
    }
  } finally {
    await vault?.stop();
    await relay.stop();
    await Deno.remove(relayDir, { recursive: true });
    await Deno.remove(vaultDir, { recursive: true });
  }
});

Deno.test("split roles: a webhook body carries a fresh read URL of the uploaded file, on the relay", async () => {
  const relayDir = await Deno.makeTempDir({ prefix: "sealpost-relay-" });
  const vaultDir = await Deno.makeTempDir({ prefix: "sealpost-vault-" });
  const receiver = startReceiver(() => new Response(null, { status: 204 }));
  const relay = await spawn(["--role", "relay", "--data", relayDir]);
  const lifetime = 86_400;
  let vault: Proc | null = null;
  try {
    const relayUser = await credentials(relayDir);
    vault = await spawn(["--role", "vault", "--relay", relay.url, "--data", vaultDir], {
      SEALPOST_RELAY_TOKEN: relayUser.ownerToken,
      SEALPOST_WEBHOOKS_BLOB_URL_LIFETIME_SECONDS: String(lifetime),
    });
    const demoForm = await demo(vault, vaultDir, relay.url);
    const { token, formId } = demoForm;
    // The vault knows its owner under its own user id; the relay files uploads under its own,
    // and names the owner (the relay user's name, asked over the owner API) in the manifest.
    assert.notEqual((await credentials(vaultDir)).userId, relayUser.userId);
    assert.equal(demoForm.manifest.recipient.userId, relayUser.userId);
    const me = await call(`${relay.url}/owner/me`, { token: relayUser.ownerToken });
    // (The relay's first user has no display name: then the manifest names none.)
    assert.equal(demoForm.manifest.owner?.name ?? "", me.body.user.name);
    assert.equal(demoForm.manifest.files, "encrypted", "the demo form encrypts files");
    // This test is about the plain flow's relay read URLs: the form switches to plain files.
    const plain = await call(`${vault.url}/vault/forms/${formId}`, {
      method: "PUT",
      token,
      json: { fields: demoForm.manifest.fields, files: "plain", publish: true },
    });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const pin = (await call(`${vault.url}/vault/manifest-key`, { token })).body.fingerprint;
    const manifest = await fetchManifest(formId, { relayUrl: relay.url, pin });
    assert.equal(manifest.files, "plain");
    const hook = await call(`${vault.url}/owner/forms/${formId}/webhooks`, {
      method: "POST",
      token,
      json: { url: receiver.url },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    const bytes = crypto.getRandomValues(new Uint8Array(5000));
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
    const before = Math.floor(Date.now() / 1000);
    const receipt = await submitForm(manifest, { name: "Ada", email: "ada@example.com" }, {
      files: { photo: { data: bytes, mime: "image/png", fileName: "ada.png" } },
    });
    const [delivered] = await receiver.waitFor(1, 20_000);
    const after = Math.ceil(Date.now() / 1000);
    const body = JSON.parse(delivered.text);
    assert.equal(body._recordId, receipt.submissionId);
    assert.equal(body._reason, "insert");

    const photo = new URL(body.photo);
    assert.equal(photo.origin, relay.url);
    assert.equal(photo.pathname, `/blobs/${relayUser.userId}/${hash}`);
    const expires = Number(photo.searchParams.get("expires"));
    assert.ok(
      expires >= before + lifetime && expires <= after + lifetime,
      `expires ${expires}: not ${lifetime} s after the delivery (${before}..${after})`,
    );
    const got = await fetch(body.photo);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get("content-type"), "image/png");
    assert.deepEqual(await got.bytes(), bytes);
    // The record keeps the stored reference; the body carried a URL made for it.
    const record = await call(
      `${vault.url}/vault/forms/${formId}/records/${receipt.submissionId}`,
      { token },
    );
    assert.equal(record.status, 200);
    assert.equal(record.body.values.photo.hash, hash);
    assert.notEqual(record.body.values.photo.url, body.photo);
  } finally {
    await vault?.stop();
    await relay.stop();
    await receiver.close();
    await Deno.remove(relayDir, { recursive: true });
    await Deno.remove(vaultDir, { recursive: true });
  }
});

Deno.test("kill -9 mid-ingest of 1,000 envelopes: each is exactly one record or quarantine row", async () => {
  const relayDir = await Deno.makeTempDir({ prefix: "sealpost-relay-" });
  const vaultDir = await Deno.makeTempDir({ prefix: "sealpost-vault-" });
  const relay = await spawn(["--role", "relay", "--data", relayDir]);
  const vaultArgs = ["--role", "vault", "--relay", relay.url, "--data", vaultDir];
  const env = {
    SEALPOST_RELAY_TOKEN: await ownerToken(relayDir),
    SEALPOST_VAULT_INGEST_BATCH_SIZE: "50",
  };
  let vault: Proc | null = null;
  try {
    vault = await spawn(vaultArgs, env);
    const { token, formId, manifest } = await demo(vault, vaultDir, relay.url);
    await vault.stop();
    const { ids, stale } = await submitMany(manifest, relay.url, 1000);
    const fp = (await call(`${relay.url}/owner/me`, { token: env.SEALPOST_RELAY_TOKEN })).body
      .databases[0].fingerprint;

    vault = await spawn(vaultArgs, env);
    const vaultToken = token;
    let before = 0;
    for (let i = 0; i < 2000; i++) {
      const res = await call(`${vault.url}/vault/forms/${formId}/records?limit=1000`, {
        token: vaultToken,
      });
      before = res.body.items.length;
      if (before >= 50) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    await vault.stop("SIGKILL");
    assert.ok(before > 0 && before < 900, `killed mid-ingest (saw ${before} records)`);

    vault = await spawn(vaultArgs, env);
    // The pages the killed vault had leased come back when their lease ends (30 s).
    for (let i = 0; i < 1200; i++) {
      const queue = await call(`${relay.url}/owner/queues/${fp}?limit=1`, {
        token: env.SEALPOST_RELAY_TOKEN,
      });
      if (queue.body.items.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const records = await call(`${vault.url}/vault/forms/${formId}/records?limit=1000`, {
      token: vaultToken,
    });
    const quarantine = await call(`${vault.url}/vault/quarantine`, { token: vaultToken });
    const recordIds = records.body.items.map((r: { _recordId: string }) => r._recordId);
    const quarantinedIds = quarantine.body.items.map((q: { submissionId: string }) =>
      q.submissionId
    );
    assert.equal(recordIds.length, 900);
    assert.equal(quarantinedIds.length, 100);
    assert.deepEqual([...quarantinedIds].sort(), [...stale].sort());
    assert.deepEqual([...recordIds, ...quarantinedIds].sort(), [...ids].sort());
  } finally {
    await vault?.stop();
    await relay.stop();
    await Deno.remove(relayDir, { recursive: true });
    await Deno.remove(vaultDir, { recursive: true });
  }
});

Deno.test("split roles: closing, reopening and deleting a form in the vault reach the relay", async () => {
  const relayDir = await Deno.makeTempDir({ prefix: "sealpost-relay-" });
  const vaultDir = await Deno.makeTempDir({ prefix: "sealpost-vault-" });
  const relay = await spawn(["--role", "relay", "--data", relayDir]);
  let vault: Proc | null = null;
  try {
    vault = await spawn(["--role", "vault", "--relay", relay.url, "--data", vaultDir], {
      SEALPOST_RELAY_TOKEN: await ownerToken(relayDir),
    });
    const { token, formId, manifest } = await demo(vault, vaultDir, relay.url);
    const base = `${vault.url}/vault/forms/${formId}`;
    const message = "Closed for the holidays.";
    assert.equal(
      (await call(`${base}/close`, { method: "POST", token, json: { message } }))
        .status,
      200,
    );
    const payload = buildPayload(manifest, { name: "Ada", email: "ada@example.com" });
    const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey));
    const closed = await call(`${relay.url}/submissions`, { method: "POST", json: envelope });
    assert.equal(closed.status, 410);
    assert.deepEqual(closed.body, { error: { code: "form_closed", message } });
    const page = await fetch(`${relay.url}/f/${formId}`);
    assert.equal(page.status, 410);
    assert.match(await page.text(), /Closed for the holidays\./);

    assert.equal((await call(`${base}/reopen`, { method: "POST", token })).status, 200);
    const open = await call(`${relay.url}/submissions`, { method: "POST", json: envelope });
    assert.equal(open.status, 200);

    assert.equal((await call(base, { method: "DELETE", token })).status, 204);
    assert.equal((await call(`${relay.url}/forms/${formId}/manifest`)).status, 404);
    const unknown = await call(`${relay.url}/submissions`, {
      method: "POST",
      json: buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey)),
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "form_not_found");
    // The envelope accepted while open still becomes a record of the deleted form.
    const records = await (async () => {
      for (let i = 0; i < 200; i++) {
        const res = await call(`${base}/records`, { token });
        if (res.body.items?.length) return res.body.items;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("The record did not arrive");
    })();
    assert.equal(records[0]._recordId, envelope.submissionId);
    assert.equal((await call(base, { method: "DELETE", token })).status, 204, "idempotent");
  } finally {
    await vault?.stop();
    await relay.stop();
    await Deno.remove(relayDir, { recursive: true });
    await Deno.remove(vaultDir, { recursive: true });
  }
});
