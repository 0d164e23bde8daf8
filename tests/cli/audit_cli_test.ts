import assert from "node:assert/strict";
import { join } from "node:path";
import { AuditLog } from "../../src/audit/log.ts";
import { generateSigningKeyPair } from "../../src/crypto/signing.ts";
import { KvAudit } from "../../src/store/kv/audit.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { auditKeys } from "../../src/store/kv/keys.ts";
import type { AuditEntry } from "../../src/store/ports/audit.ts";
import { VaultKeys } from "../../src/vault/keys.ts";
import { sealpost } from "../_support/cli.ts";

/** An initialised data dir with its manifest key and `count` audit entries. */
async function dataDir(count: number): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-audit-cli-" });
  const init = await sealpost(["init", "--data", dir]);
  assert.equal(init.code, 0, init.stderr);
  const keys = new VaultKeys(dir, null);
  await keys.manifestKey();
  await withKv(dir, async (kv) => {
    const log = new AuditLog(new KvAudit(kv), { manifestKey: () => keys.manifestKey() });
    for (let n = 1; n <= count; n++) {
      await log.record({
        action: "record_viewed",
        personId: "p1",
        target: { kind: "record", id: `r${n}` },
      });
    }
    assert.equal(log.failures, 0);
  });
  return dir;
}

async function withKv(dir: string, fn: (kv: Deno.Kv) => Promise<void>) {
  const kv = await openStore(dir);
  try {
    await fn(kv);
  } finally {
    kv.close();
  }
}

Deno.test("audit export and verify: a data dir's log, exported, verifies; edits are named", async () => {
  const dir = await dataDir(5);
  try {
    const data = ["--data", dir];
    const out = join(dir, "audit.jsonl");
    const exported = await sealpost(["audit", "export", "--out", out, ...data]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(
      exported.stdout,
      /Wrote 5 audit entries to .*audit\.jsonl, the head signed at seq 5/,
    );
    assert.equal((await Deno.stat(out)).mode! & 0o777, 0o600);
    const lines = (await Deno.readTextFile(out)).trim().split("\n");
    assert.deepEqual(lines.map((l) => JSON.parse(l).kind), [...Array(5).fill("entry"), "head"]);

    const verified = await sealpost(["audit", "verify", out, ...data]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /Verified .*audit\.jsonl: 5 entries, the chain ends at seq 5/);
    const json = await sealpost(["audit", "verify", out, ...data, "--json"]);
    assert.deepEqual(JSON.parse(json.stdout).ok, true);

    // A removed line is named by its seq; so is an edited one.
    const removed = join(dir, "removed.jsonl");
    await Deno.writeTextFile(removed, lines.filter((_, i) => i !== 2).join("\n") + "\n");
    const gap = await sealpost(["audit", "verify", removed, ...data]);
    assert.equal(gap.code, 1);
    assert.match(gap.stderr, /failed: Entry seq 3 was removed/);
    const edited = join(dir, "edited.jsonl");
    await Deno.writeTextFile(edited, lines.join("\n").replace('"r4"', '"r9"') + "\n");
    const changed = await sealpost(["audit", "verify", edited, ...data, "--json"]);
    assert.equal(changed.code, 1);
    assert.deepEqual(
      [JSON.parse(changed.stdout).seq, JSON.parse(changed.stdout).kind],
      [4, "changed"],
    );

    // --key: the manifest key file, or a public key in base64; another key's fails.
    const manifestKey = new VaultKeys(dir, null).paths.manifestKey;
    assert.equal((await sealpost(["audit", "verify", out, "--key", manifestKey])).code, 0);
    const other = join(dir, "other.pub");
    await Deno.writeTextFile(other, generateSigningKeyPair().publicKey.toBase64() + "\n");
    const forged = await sealpost(["audit", "verify", out, "--key", other]);
    assert.equal(forged.code, 1);
    assert.match(forged.stderr, /not signed by the manifest key/);

    // Never over an existing file.
    const again = await sealpost(["audit", "export", "--out", out, ...data]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit verify without a file checks the store's log and names a changed entry", async () => {
  const dir = await dataDir(4);
  try {
    const data = ["--data", dir];
    const ok = await sealpost(["audit", "verify", ...data]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /Verified the audit log of the store: 4 entries/);
    await withKv(dir, async (kv) => {
      const entry = (await kv.get<AuditEntry>(auditKeys.entry(2))).value!;
      await kv.set(auditKeys.entry(2), { ...entry, event: { ...entry.event, personId: "p2" } });
    });
    const bad = await sealpost(["audit", "verify", ...data]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Entry seq 2 was changed/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("audit: usage errors exit 2; a data dir without a manifest key exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-audit-cli-" });
  try {
    assert.equal((await sealpost(["init", "--data", dir])).code, 0);
    for (
      const args of [
        ["audit"],
        ["audit", "export"],
        ["audit", "export", "extra", "--out", "x"],
        ["audit", "verify", "a", "b"],
        ["audit", "prune"],
      ]
    ) {
      assert.equal((await sealpost([...args, "--data", dir])).code, 2, args.join(" "));
    }
    const help = await sealpost(["audit", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /sealpost audit verify \[FILE\]/);
    const noKey = await sealpost(["audit", "export", "--out", join(dir, "a.jsonl"), "--data", dir]);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /No manifest key at/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
