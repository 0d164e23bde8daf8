/**
 * Releasing files at the relay: every pending release is handed over once, a release the relay
 * refuses stays for the next run (also past the first page of them), none is lost.
 */
import assert from "node:assert/strict";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { releaseFiles } from "../../src/vault/file_release.ts";
import { VaultForms } from "../../src/vault/forms.ts";
import type { RelayLink } from "../../src/vault/relay_link.ts";

/** A relay that records releases and refuses those of the records in `refuse`. */
function relay(refuse: Set<string>) {
  const released: string[] = [];
  const link = {
    release(relayUserId: string, hashes: string[], claimant: string) {
      assert.equal(relayUserId, "relay-user");
      if (refuse.has(claimant)) return Promise.reject(new Error(`refused ${claimant}`));
      released.push(`${claimant}:${hashes.length}`);
      return Promise.resolve();
    },
  } as unknown as RelayLink;
  return { link, released };
}

Deno.test("releaseFiles: refused releases stay for the next run, past the first page too", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const store = vaultKvPorts(kv);
    await store.vaultDatabases.put({
      id: "db1",
      userId: "u1",
      relayUserId: "relay-user",
      name: "main",
      publicKey: "AAAA",
      fingerprint: "0".repeat(64),
      createdAt: new Date().toISOString(),
    });
    await new VaultForms(store.forms).create({
      userId: "u1",
      databaseId: "db1",
      formId: "f1",
      title: "F",
      fields: [{ id: "photo", label: "Photo", kind: "image" }],
    });
    // 230 records with one file each, deleted: 230 releases, more than two pages of them.
    const ids = Array.from({ length: 230 }, (_, i) => `r${String(i).padStart(3, "0")}`);
    for (const [i, id] of ids.entries()) {
      const hash = i.toString(16).padStart(64, "0");
      await store.records.write("f1", id, () => ({
        formId: "f1",
        recordId: id,
        schemaVersion: 1,
        values: { photo: { owned: true, hash } },
        submissionId: null,
        appliedVersion: 0,
      }));
      assert.equal(await store.records.delete("f1", id), "deleted");
    }
    const refused = new Set(ids.filter((_, i) => i % 7 === 0).map((id) => `f1/${id}`));
    const first = relay(refused);
    const run = await releaseFiles(store, first.link);
    assert.equal(run.failed, refused.size);
    assert.equal(run.released, ids.length - refused.size);
    assert.match(run.error!, /^refused f1\/r000$/);
    assert.equal(new Set(first.released).size, first.released.length, "each handed over once");
    assert.equal((await store.fileReleases.pending(1000)).length, refused.size);

    const second = relay(new Set());
    assert.deepEqual(await releaseFiles(store, second.link), {
      released: refused.size,
      failed: 0,
    });
    assert.deepEqual(second.released.sort(), [...refused].map((c) => `${c}:1`).sort());
    assert.deepEqual(await store.fileReleases.pending(10), []);
  } finally {
    kv.close();
  }
});
