/**
 * A changed address strands nothing (role `all`): forms published at one `base_url` are
 * signed again and republished when the instance restarts with another, at the version the
 * relay serves (a newer draft stays a draft), with one log line; a second restart changes
 * nothing; the console's share page shows the current address.
 */
import assert from "node:assert/strict";
import { fetchManifest, type Manifest } from "../../src/sdk/mod.ts";
import { AddressSync } from "../../src/vault/address_sync.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";
import { ConsoleClient, firstPerson } from "../console/_client.ts";

const OLD = "https://old.example.org";
const NEW = "https://forms.example.org";
const FIELDS = [{ id: "name", label: "Name", kind: "text", required: true }];

/** Starts the instance of `dir` at `baseUrl`; what the vault logged while starting. */
async function startAt(dir: string, baseUrl: string): Promise<[TestInstance, string[]]> {
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => logged.push(args.join(" "));
  try {
    return [await startInstance({ SEALPOST_BASE_URL: baseUrl }, dir), logged];
  } finally {
    console.error = original;
  }
}

async function served(inst: TestInstance, formId: string): Promise<Manifest> {
  const res = await call(`${inst.url}/forms/${formId}/manifest`);
  assert.equal(res.status, 200);
  return res.body;
}

async function newForm(inst: TestInstance, databaseId: string, title: string, publish: boolean) {
  const res = await call(`${inst.url}/vault/forms`, {
    method: "POST",
    token: inst.credentials.ownerToken,
    json: { databaseId, title, fields: FIELDS, publish },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.formId as string;
}

Deno.test("a new base_url republishes every published form once, and only those", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-address-" });
  try {
    let [inst] = await startAt(dir, OLD);
    const token = inst.credentials.ownerToken;
    const db = await call(`${inst.url}/vault/databases`, {
      method: "POST",
      token,
      json: { name: "main" },
    });
    const contact = await newForm(inst, db.body.id, "Contact", true);
    const survey = await newForm(inst, db.body.id, "Survey", true);
    const draft = await newForm(inst, db.body.id, "Never published", false);
    // Survey gets a version 2 that is saved but not published.
    const v2 = await call(`${inst.url}/vault/forms/${survey}`, {
      method: "PUT",
      token,
      json: { title: "Survey, second draft", fields: FIELDS },
    });
    assert.equal(v2.body.schemaVersion, 2);
    const pin = (await call(`${inst.url}/vault/manifest-key`, { token })).body.fingerprint;
    assert.equal((await served(inst, contact)).relayUrl, OLD);
    assert.equal((await served(inst, survey)).relayUrl, OLD);
    await inst.close();

    let logged: string[];
    [inst, logged] = await startAt(dir, NEW);
    assert.deepEqual(
      logged.filter((line) => line.startsWith("Republished")),
      [`Republished 2 forms for ${NEW} (they carried ${OLD})`],
    );
    // The relay serves them with the new address; the SDK verifies the new signatures.
    for (const formId of [contact, survey]) {
      const manifest = await fetchManifest(formId, { relayUrl: inst.url, pin });
      assert.equal(manifest.relayUrl, NEW);
    }
    // Survey is still live at version 1 (the draft stays a draft), both versions archived.
    const live = await served(inst, survey);
    assert.equal(live.schemaVersion, 1);
    assert.equal(live.title, "Survey");
    const form = await call(`${inst.url}/vault/forms/${survey}`, { token });
    assert.equal(form.body.publishedVersion, 1);
    assert.equal(form.body.schemaVersion, 2);
    const versions = await call(`${inst.url}/vault/forms/${survey}/versions`, { token });
    assert.equal(versions.body.items.length, 2);
    assert.equal((await call(`${inst.url}/forms/${draft}/manifest`)).status, 404);

    // The console's share page, its snippets and QR code: the current address.
    const console_ = new ConsoleClient(inst.url);
    await console_.signIn(await firstPerson(inst));
    const share = await console_.page(`/console/forms/${contact}/share`);
    assert.ok(share.includes(`${NEW}/f/${contact}#pin=${pin}`), "share link");
    assert.ok(share.includes(`${NEW}/embed.js`), "script snippet");
    assert.ok(!share.includes(OLD), "no old address on the share page");
    await inst.close();

    // Idempotent: the same address again republishes nothing.
    [inst, logged] = await startAt(dir, NEW);
    assert.deepEqual(logged.filter((line) => line.startsWith("Republished")), []);
    assert.deepEqual(
      await served(inst, contact),
      await fetchManifest(contact, {
        relayUrl: inst.url,
        pin,
      }),
    );
    await inst.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a check that finds nothing to move asks the relay only for its address", async () => {
  const inst = await startInstance({ SEALPOST_BASE_URL: NEW });
  try {
    await vaultForm(inst, "Contact", FIELDS);
    const vault = inst.server.vault!;
    let reads = 0;
    const link = vault.link;
    const counting = Object.create(link, {
      published: { value: (formId: string) => (reads++, link.published(formId)) },
    });
    const sync = new AddressSync({ store: vault.store, keys: vault.keys, link: counting });
    assert.equal(await sync.check(), null); // the first check reads every published manifest
    const first = reads;
    assert.equal(first, 1);
    assert.equal(await sync.check(), null);
    assert.equal(reads, first, "a settled address reads no manifest again");
  } finally {
    await inst.close();
  }
});
