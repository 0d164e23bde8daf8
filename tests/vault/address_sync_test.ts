/**
 * AddressSync in process: its log line's words, a relay that moves while the vault runs, and
 * a form that cannot be republished (the others are, it is tried again, its failure is
 * logged once).
 */
import { ownerGate } from "../_support/people.ts";
import { noAudit } from "../../src/audit/sink.ts";
import assert from "node:assert/strict";
import type { Manifest } from "../../src/forms/manifest.ts";
import { AddressSync, republishedLine } from "../../src/vault/address_sync.ts";
import { FormLifecycle } from "../../src/vault/form_lifecycle.ts";
import type { RelayLink } from "../../src/vault/relay_link.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const FIELDS = [{ id: "name", label: "Name", kind: "text" }];

Deno.test("republishedLine: one line, in plain words", () => {
  assert.equal(
    republishedLine({ address: "https://a.example", count: 3, carried: ["http://127.0.0.1:8080"] }),
    "Republished 3 forms for https://a.example (they carried http://127.0.0.1:8080)",
  );
  assert.equal(
    republishedLine({ address: "https://a.example", count: 1, carried: ["http://b.example"] }),
    "Republished 1 form for https://a.example (it carried http://b.example)",
  );
  assert.equal(
    republishedLine({
      address: "https://a.example",
      count: 4,
      carried: ["http://b.example", "http://c.example", "http://d.example"],
    }),
    "Republished 4 forms for https://a.example " +
      "(they carried http://b.example, http://c.example and http://d.example)",
  );
});

/** A link to the instance's relay that reports `address()` and may fail some publishes. */
function movedLink(
  link: RelayLink,
  address: () => string,
  failPublish: (formId: string) => boolean,
): RelayLink {
  return Object.create(link, {
    refreshRelayUrl: { value: () => Promise.resolve(address()) },
    publish: {
      value: (userId: string, manifest: Manifest) =>
        failPublish(manifest.formId)
          ? Promise.reject(new Error(`Relay refused ${manifest.formId}`))
          : link.publish(userId, manifest),
    },
  });
}

Deno.test("a relay that moves, and a form that fails to republish", async () => {
  const inst = await startInstance({ SEALPOST_BASE_URL: "http://127.0.0.1:9" });
  try {
    const vault = inst.server.vault!;
    const a = (await vaultForm(inst, "A", FIELDS)).form.formId;
    const token = inst.credentials.ownerToken;
    const db = (await call(`${inst.url}/vault/databases`, { token })).body.items[0].id;
    const b = (await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: { databaseId: db, title: "B", fields: FIELDS, publish: true },
    })).body.formId;
    const carried = async (formId: string) => (await vault.link.published(formId))!.relayUrl;
    let address = "https://one.example";
    let broken = true;
    const logged: string[] = [];
    const sync = new AddressSync({
      store: vault.store,
      keys: vault.keys,
      link: movedLink(vault.link, () => address, (formId) => broken && formId === a),
      log: (line) => logged.push(line),
    });

    await assert.rejects(sync.check(), /Relay refused/);
    assert.equal(await carried(b), "https://one.example");
    assert.equal(await carried(a), "http://127.0.0.1:9");
    await sync.run(); // the same failure: logged once
    await sync.run();
    assert.deepEqual(logged, [
      "Republished 1 form for https://one.example (it carried http://127.0.0.1:9)",
      "Published forms may carry an old address (tried again later): Relay refused " + a,
    ]);

    broken = false;
    logged.length = 0;
    await sync.run();
    assert.equal(await carried(a), "https://one.example");
    assert.deepEqual(logged, [
      "Republished 1 form for https://one.example (it carried http://127.0.0.1:9)",
    ]);

    // The relay reports another address while the vault runs: the next check moves both.
    address = "https://two.example";
    logged.length = 0;
    await sync.run();
    assert.equal(await carried(a), "https://two.example");
    assert.equal(await carried(b), "https://two.example");
    assert.deepEqual(logged, [
      "Republished 2 forms for https://two.example (they carried https://one.example)",
    ]);
  } finally {
    await inst.close();
  }
});

Deno.test("a republished manifest still names the form's owner", async () => {
  const inst = await startInstance({ SEALPOST_BASE_URL: "http://127.0.0.1:9" });
  try {
    const vault = inst.server.vault!;
    const formId = (await vaultForm(inst, "Named", FIELDS)).form.formId;
    const moved = movedLink(vault.link, () => "https://one.example", () => false);
    const link: RelayLink = Object.create(moved, {
      ownerName: { value: () => Promise.resolve("Grace Hopper") },
    });
    await new AddressSync({ store: vault.store, keys: vault.keys, link }).check();
    const served = (await vault.link.published(formId))!;
    assert.equal(served.relayUrl, "https://one.example");
    assert.deepEqual(served.owner, { name: "Grace Hopper" });
  } finally {
    await inst.close();
  }
});

Deno.test("a form closed while the relay moves follows it when reopened", async () => {
  const inst = await startInstance({ SEALPOST_BASE_URL: "http://127.0.0.1:9" });
  try {
    const vault = inst.server.vault!;
    const gate = await ownerGate(vault, inst.credentials.userId);
    const formId = (await vaultForm(inst, "Closed", FIELDS)).form.formId;
    const moved = movedLink(vault.link, () => "https://one.example", () => false);
    // As over HTTP: the relay serves no one a closed form's manifest.
    const link: RelayLink = Object.create(moved, {
      published: {
        value: async (id: string) =>
          (await vault.forms.row(id))?.closed ? null : await vault.link.published(id),
      },
    });
    const sync = new AddressSync({ store: vault.store, keys: vault.keys, link });
    const lifecycle = new FormLifecycle(vault.forms, link, noAudit, (id) => sync.followOne(id));
    await lifecycle.close(gate, formId, "Back soon");
    assert.equal(await sync.check(), null, "the closed form is passed by");
    assert.equal((await vault.link.published(formId))!.relayUrl, "http://127.0.0.1:9");
    await lifecycle.reopen(gate, formId);
    assert.equal((await vault.link.published(formId))!.relayUrl, "https://one.example");
    assert.equal(await sync.followOne(formId), false, "nothing more to do");
  } finally {
    await inst.close();
  }
});
