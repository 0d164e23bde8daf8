/**
 * The commands run on the data dir's machine record their actions in the audit log through the
 * store (src/cli/_local_audit.ts): `backup` (backup_created) and `key export-age`
 * (key_exported, naming the database), with no person and `via: "cli"`, while the server runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sealpost } from "../_support/cli.ts";
import { startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

Deno.test("backup and key export-age: recorded in the audit log of the running instance", async () => {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await vaultForm(inst, "Keys", [{ id: "name", label: "Name", kind: "text" }]);
    const data = ["--data", inst.config.data_dir];
    const backup = await sealpost(["backup", "--out", join(dir, "backup.tar"), ...data]);
    assert.equal(backup.code, 0, backup.stderr);
    const key = await sealpost(["key", "export-age", db.fingerprint, "--out", join(dir, "id")]
      .concat(data));
    assert.equal(key.code, 0, key.stderr);
    assert.doesNotMatch(backup.stderr + key.stderr, /warning/);

    const audit = inst.server.vault!.store.audit;
    const [exported] = await audit.list({ limit: 10, action: "key_exported" });
    assert.deepEqual(exported.event, {
      action: "key_exported",
      personId: null,
      databaseId: db.id,
      target: { kind: "database_key", id: db.fingerprint },
      detail: { format: "age", via: "cli" },
    });
    const [made] = await audit.list({ limit: 10, action: "backup_created" });
    assert.equal(made.event.personId, null);
    assert.equal(made.event.detail?.via, "cli");
    assert.equal(typeof made.event.detail?.files, "number");
    assert.ok(made.seq < exported.seq, "in the order they happened");
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});
