/**
 * `store.backend = "postgres"` over real HTTP: one process of role `all`; a second relay joining
 * the initialised database (shared relay secret: its edit tokens and upload URLs work on the
 * other); a relay with two vault workers as separate processes on one database; and relays
 * and vault workers on databases of their own (the relays' never holds a record).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../src/config/index.ts";
import { readCredentials } from "../src/store/data_dir.ts";
import { initDataDir } from "../src/init/init.ts";
import { startServer } from "../src/server.ts";
import type { Sql } from "../src/store/pg/db.ts";
import {
  buildEnvelope,
  buildPayload,
  fetchManifest,
  type Manifest,
  seal,
  sha256Hex,
  submitForm,
} from "../src/sdk/mod.ts";
import { type ServeChild, spawnServeArgs } from "./_support/process.ts";
import { call, startInstance } from "./_support/server.ts";
import { vaultForm } from "./_support/vault.ts";
import { freshPg } from "./store/contract/_pg.ts";
import { startReceiver } from "./webhooks/_harness.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "email", label: "Email", kind: "email" },
];

/** The settings that put a process on the fresh schema of `pg`. */
function pgEnv(pg: { url: string; schema: string }): Record<string, string> {
  return {
    SEALPOST_STORE_BACKEND: "postgres",
    SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
    SEALPOST_STORE_POSTGRES_POOL_SIZE: "4",
    SEALPOST_VAULT_POLL_INTERVAL_SECONDS: "0.2",
  };
}

async function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** The record of `submissionId`, once the vault has saved it. */
function record(url: string, token: string, formId: string, submissionId: string) {
  return until(async () => {
    const res = await call(`${url}/vault/forms/${formId}/records/${submissionId}`, { token });
    return res.status === 200 ? res.body : null;
  }, `record ${submissionId}`);
}

/** How many users and admin tokens the database holds. */
async function identities(sql: Sql) {
  const [row] = await sql<{ users: number; admins: number }[]>`select
    (select count(*)::int from relay_users) as users,
    (select count(*)::int from relay_tokens where kind = 'admin') as admins`;
  return { users: row.users, admins: row.admins };
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

Deno.test("postgres, role all: init, intake, ingest, records, webhooks, metrics; no Deno KV file", async () => {
  const pg = await freshPg();
  const receiver = startReceiver(() => new Response("ok"));
  const inst = await startInstance(pgEnv(pg));
  try {
    const dir = inst.config.data_dir;
    assert.equal(await exists(join(dir, "sealpost.kv")), false, "no KV store opened");
    assert.equal(await exists(join(dir, "relay.secret")), false, "the secret is in the database");
    const [{ n }] = await pg.sql`select count(*)::int as n from sealpost_settings
      where name in ('relay_secret', 'first_user_id')`;
    assert.equal(n, 2);
    const { token, form, pin } = await vaultForm(inst, "Survey", FIELDS);
    const hook = await call(`${inst.url}/owner/forms/${form.formId}/webhooks`, {
      method: "POST",
      token,
      json: { url: receiver.url },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const receipt = await submitForm(manifest, { name: "Ada", email: "ada@example.com" });
    const saved = await record(inst.url, token, form.formId, receipt.submissionId);
    assert.deepEqual(saved.values, { name: "Ada", email: "ada@example.com" });
    // The record's event became one webhook delivery (outbox, schedule rows, attempt).
    const [delivered] = await receiver.waitFor(1, 20_000);
    const body = JSON.parse(delivered.text);
    assert.equal(body._recordId, receipt.submissionId);
    assert.equal(body.name, "Ada");
    const metrics = await call(`${inst.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^sealpost_quarantine_envelopes 0$/m);
    assert.match(metrics.body, /^sealpost_webhook_retry_backlog 0$/m);
    assert.match(metrics.body, /^sealpost_queue_depth\{fingerprint="[^"]+"\} 0$/m);
  } finally {
    await inst.close();
    await receiver.close();
    await pg.close();
  }
});

/** A relay on `pg`'s schema in a new data dir, started in this process (init first). */
async function joinRelay(pg: { url: string; schema: string }) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-pg-relay-" });
  const config = await loadConfig({
    env: {
      SEALPOST_RATE_LIMITS_ENABLED: "false",
      SEALPOST_SERVER_REQUEST_LOG: "false",
      SEALPOST_SERVER_ROLE: "relay",
      ...pgEnv(pg),
    },
    flags: { data: dir, host: "127.0.0.1", port: 0 },
  });
  const init = await initDataDir(config);
  const server = await startServer(config);
  return {
    init,
    server,
    close: async () => {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("postgres: a second relay joins the initialised database; tokens and URLs work on both", async () => {
  const pg = await freshPg();
  const first = await startInstance(pgEnv(pg));
  const second = await joinRelay(pg);
  try {
    // Joined, not initialised again: no credentials of its own, the same first user.
    assert.equal(second.init.created, false);
    assert.equal(second.init.credentials, null);
    assert.equal(second.init.userId, first.credentials.userId);
    assert.equal(await readCredentials(second.init.dataDir), null);
    assert.deepEqual(await identities(pg.sql), { users: 1, admins: 1 });
    const admin = first.credentials.adminToken;
    const user = await call(`${second.server.url}/admin/users`, {
      method: "POST",
      token: admin,
      json: { name: "grace" },
    });
    assert.equal(user.status, 201, "the first process's admin token works on the second");

    // A submission through the second relay, amended through the first with its edit token.
    const { token, form, pin } = await vaultForm(first, "Contact", FIELDS);
    const manifest = await fetchManifest(form.formId, { relayUrl: second.server.url, pin });
    const receipt = await submitForm(manifest, { name: "Ada" }, {
      relayUrl: second.server.url,
    });
    await record(first.url, token, form.formId, receipt.submissionId);
    const payload = buildPayload(manifest, { name: "Grace" }, { mode: "Update" });
    const amended = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey), {
      submissionId: receipt.submissionId,
    });
    const amend = await call(`${first.url}/submissions/${receipt.submissionId}`, {
      method: "PUT",
      token: receipt.editToken,
      json: amended,
    });
    assert.equal(amend.status, 200, JSON.stringify(amend.body));
    const updated = await until(async () => {
      const saved = await record(first.url, token, form.formId, receipt.submissionId);
      return saved.values.name === "Grace" ? saved : null;
    }, "the amended record");
    assert.equal(updated.values.name, "Grace");

    // An upload URL signed by the first relay is accepted by the second.
    const bytes = new TextEncoder().encode("shared secret, shared URLs");
    const hash = await sha256Hex(bytes);
    const slot = await call(`${first.url}/submissions/upload-slot`, {
      method: "POST",
      json: { recipientUserId: first.credentials.userId, hash, mime: "text/plain" },
    });
    assert.equal(slot.status, 200, JSON.stringify(slot.body));
    const url = new URL(slot.body.url);
    const put = await call(`${second.server.url}${url.pathname}${url.search}`, {
      method: "PUT",
      body: bytes,
      headers: { "content-type": "text/plain", "x-amz-content-sha256": hash },
    });
    assert.ok(put.status >= 200 && put.status < 300, `PUT answered ${put.status}`);
  } finally {
    await second.close();
    await first.close();
    await pg.close();
  }
});

async function submitMany(manifest: Manifest, relayUrl: string, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const values = { name: `n${i}`, email: `u${i}@example.com` };
    ids.push((await submitForm(manifest, values, { relayUrl })).submissionId);
  }
  return ids;
}

/** The vault's demo form once its first worker has set it up and published it. */
function demoForm(vaultUrl: string, token: string) {
  return until(async () => {
    const forms = await call(`${vaultUrl}/vault/forms`, { token });
    return forms.body?.items?.[0]?.publishedVersion ? forms.body.items[0] : null;
  }, "the demo form");
}

/**
 * Starts a second vault worker on `dirs.v2` with the keys of the first (`dirs.v1`): vault
 * workers of one database share the vault's keys (docs/scale.md).
 */
async function spawnSecondWorker(
  relayUrl: string,
  dirs: { v1: string; v2: string },
  env: Record<string, string>,
): Promise<ServeChild> {
  await Deno.mkdir(join(dirs.v2, "vault"), { recursive: true });
  await new Deno.Command("cp", {
    args: ["-a", join(dirs.v1, "vault", "keys"), join(dirs.v2, "vault", "keys")],
  }).output();
  return await spawnServeArgs(["--role", "vault", "--relay", relayUrl, "--data", dirs.v2], env);
}

Deno.test("postgres: a relay and two vault workers as processes on one database", async () => {
  const pg = await freshPg();
  const work = await Deno.makeTempDir({ prefix: "sealpost-pg-roles-" });
  const dirs = { relay: join(work, "relay"), v1: join(work, "v1"), v2: join(work, "v2") };
  const procs: ServeChild[] = [];
  try {
    const env = pgEnv(pg);
    const relay = await spawnServeArgs(["--role", "relay", "--data", dirs.relay], env);
    procs.push(relay);
    const credentials = (await readCredentials(dirs.relay))!;
    const vaultEnv = { ...env, SEALPOST_RELAY_TOKEN: credentials.ownerToken };
    const vault1 = await spawnServeArgs(
      ["--role", "vault", "--relay", relay.url, "--data", dirs.v1],
      vaultEnv,
    );
    procs.push(vault1);
    const token = credentials.ownerToken;
    // The first vault worker's setup: one database and a published demo form.
    const demo = await demoForm(vault1.url, token);
    const vault2 = await spawnSecondWorker(relay.url, dirs, vaultEnv);
    procs.push(vault2);
    assert.equal(await readCredentials(dirs.v1), null, "the vault joined: no tokens of its own");
    assert.deepEqual(await identities(pg.sql), { users: 1, admins: 1 }, "initialised once");
    // The second worker's setup found the first one's: still one form and one database.
    for (const vault of [vault1, vault2]) {
      const forms = await call(`${vault.url}/vault/forms`, { token });
      assert.deepEqual(forms.body.items.map((f: { formId: string }) => f.formId), [demo.formId]);
      const dbs = await call(`${vault.url}/vault/databases`, { token });
      assert.equal(dbs.body.items.length, 1);
    }
    const pin = (await call(`${vault2.url}/vault/manifest-key`, { token })).body.fingerprint;
    const manifest = await fetchManifest(demo.formId, { relayUrl: relay.url, pin });
    const ids = await submitMany(manifest, relay.url, 30);
    for (const id of ids) await record(vault2.url, token, demo.formId, id);
    const quarantine = await call(`${vault1.url}/vault/quarantine`, { token });
    assert.equal(quarantine.body.items.length, 0);
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
    await Deno.remove(work, { recursive: true });
    await pg.close();
  }
});

Deno.test("postgres: relays and vault workers on databases of their own; the relays' holds no record", async () => {
  const relayDb = await freshPg();
  const vaultDb = await freshPg();
  const work = await Deno.makeTempDir({ prefix: "sealpost-pg-split-" });
  const dirs = { relay: join(work, "relay"), v1: join(work, "v1"), v2: join(work, "v2") };
  const procs: ServeChild[] = [];
  try {
    const relay = await spawnServeArgs(["--role", "relay", "--data", dirs.relay], pgEnv(relayDb));
    procs.push(relay);
    const relayToken = (await readCredentials(dirs.relay))!.ownerToken;
    const vaultEnv = { ...pgEnv(vaultDb), SEALPOST_RELAY_TOKEN: relayToken };
    const vault1 = await spawnServeArgs(
      ["--role", "vault", "--relay", relay.url, "--data", dirs.v1],
      vaultEnv,
    );
    procs.push(vault1);
    // The vault's database is initialised by its first worker: users and tokens of its own.
    const token = (await readCredentials(dirs.v1))!.ownerToken;
    assert.notEqual(token, relayToken);
    const demo = await demoForm(vault1.url, token);
    const vault2 = await spawnSecondWorker(relay.url, dirs, vaultEnv);
    procs.push(vault2);
    const pin = (await call(`${vault2.url}/vault/manifest-key`, { token })).body.fingerprint;
    const manifest = await fetchManifest(demo.formId, { relayUrl: relay.url, pin });
    const ids = await submitMany(manifest, relay.url, 20);
    for (const id of ids) await record(vault1.url, token, demo.formId, id);
    const count = async (sql: Sql) =>
      (await sql<{ n: number }[]>`select count(*)::int as n from vault_records`)[0].n;
    assert.equal(await count(vaultDb.sql), 20);
    assert.equal(await count(relayDb.sql), 0, "no record in the relays' database");
    const queued = await relayDb.sql<{ n: number }[]>`select count(*)::int as n from relay_queue`;
    assert.equal(queued[0].n, 0, "every envelope acked");
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
    await Deno.remove(work, { recursive: true });
    await relayDb.close();
    await vaultDb.close();
  }
});

Deno.test("postgres: two vault workers starting together set the vault up once", async () => {
  const pg = await freshPg();
  const work = await Deno.makeTempDir({ prefix: "sealpost-pg-setup-" });
  const procs: ServeChild[] = [];
  try {
    const env = pgEnv(pg);
    const relay = await spawnServeArgs(["--role", "relay", "--data", join(work, "relay")], env);
    procs.push(relay);
    const token = (await readCredentials(join(work, "relay")))!.ownerToken;
    const vaultEnv = { ...env, SEALPOST_RELAY_TOKEN: token };
    const vaults = await Promise.all(
      ["v1", "v2"].map((name) =>
        spawnServeArgs(
          ["--role", "vault", "--relay", relay.url, "--data", join(work, name)],
          vaultEnv,
        )
      ),
    );
    procs.push(...vaults);
    const forms = await until(async () => {
      const res = await call(`${vaults[0].url}/vault/forms`, { token });
      return res.body?.items?.[0]?.publishedVersion ? res.body.items : null;
    }, "the demo form");
    // The setup's last write is its "demo" fact; the other worker waited on the lock meanwhile
    // (without it, it would have made a second database and form by now). A second more for it.
    await until(async () => {
      const facts = await pg.sql`select 1 from vault_facts where name = 'demo'`;
      return facts.length === 1 ? true : null;
    }, "the demo fact");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const vault of vaults) {
      const again = await call(`${vault.url}/vault/forms`, { token });
      assert.deepEqual(again.body.items.length, 1, "one demo form");
      const dbs = await call(`${vault.url}/vault/databases`, { token });
      assert.equal(dbs.body.items.length, 1, "one database");
    }
    assert.equal(forms.length, 1);
    assert.deepEqual(await identities(pg.sql), { users: 1, admins: 1 });
  } finally {
    for (const proc of procs.reverse()) await proc.stop();
    await Deno.remove(work, { recursive: true });
    await pg.close();
  }
});

/** A TCP relay to the database that the test can cut (every connection) and restore. */
function cuttableProxy(target: URL) {
  const open = new Set<Deno.Conn>();
  let listener: Deno.Listener | null = null;
  const serve = (port: number) => {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    (async () => {
      for await (const client of listener!) {
        const server = await Deno.connect({
          hostname: target.hostname,
          port: Number(target.port),
        }).catch(() => null);
        if (!server) {
          client.close();
          continue;
        }
        open.add(client).add(server);
        const pipe = (from: Deno.Conn, to: Deno.Conn) =>
          from.readable.pipeTo(to.writable).catch(() => {}).finally(() => {
            for (const conn of [from, to]) {
              open.delete(conn);
              try {
                conn.close();
              } catch { /* closed */ }
            }
          });
        pipe(client, server);
        pipe(server, client);
      }
    })().catch(() => {});
    return (listener.addr as Deno.NetAddr).port;
  };
  const port = serve(0);
  return {
    port,
    cut() {
      listener?.close();
      listener = null;
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* closed */ }
      }
      open.clear();
    },
    restore: () => void (listener ?? serve(port)),
  };
}

Deno.test("postgres: a database that cannot be reached is a 503 storage_unavailable and a degraded /healthz, then serves again", async () => {
  const pg = await freshPg();
  const proxy = cuttableProxy(new URL(pg.url));
  const url = new URL(pg.url);
  url.host = `127.0.0.1:${proxy.port}`;
  const inst = await startInstance({
    ...pgEnv(pg),
    SEALPOST_POSTGRES_URL: `${url}?search_path=${pg.schema}`,
  });
  try {
    const { token, form, pin } = await vaultForm(inst, "Contact", FIELDS);
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const envelope = async () =>
      buildEnvelope(
        manifest,
        await seal(buildPayload(manifest, { name: "Ada" }), manifest.recipient.publicKey),
      );
    const submit = async () =>
      call(`${inst.url}/submissions`, { method: "POST", json: await envelope() });
    assert.equal((await submit()).status, 200);
    proxy.cut();
    for (const answer of [await submit(), await call(`${inst.url}/vault/forms`, { token })]) {
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, "storage_unavailable");
      assert.match(answer.body.error.message, /database unavailable/);
      assert.equal(answer.headers.get("retry-after"), "30");
    }
    // The health check asks the database too: degraded while it cannot be reached.
    const health = await call(`${inst.url}/healthz`);
    assert.equal(health.status, 503);
    assert.equal(health.body.reason, "database unavailable");
    proxy.restore();
    await until(async () => {
      const answer = await call(`${inst.url}/healthz`);
      return answer.status === 200 ? answer : null;
    }, "a healthy check again");
    const back = await until(async () => {
      const answer = await submit();
      return answer.status === 200 ? answer : null;
    }, "intake on the database again");
    assert.match(back.body.editToken, /^[A-Za-z0-9_-]{43}$/);
  } finally {
    proxy.restore();
    await inst.close();
    proxy.cut();
    await pg.close();
  }
});
