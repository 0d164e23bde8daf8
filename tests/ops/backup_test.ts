import assert from "node:assert/strict";
import { join } from "node:path";
import { fetchManifest, submitForm, uploadFile } from "../../src/sdk/mod.ts";
import { sealpost } from "../_support/cli.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "photo", label: "Photo", kind: "image", required: false },
];

async function recordsOf(inst: TestInstance, formId: string) {
  const out = new Map<string, Record<string, unknown>>();
  let cursor: string | null = null;
  do {
    const page = await call(
      `${inst.url}/vault/forms/${formId}/records?limit=500${cursor ? `&cursor=${cursor}` : ""}`,
      { token: inst.credentials.ownerToken },
    );
    assert.equal(page.status, 200, JSON.stringify(page.body));
    for (const r of page.body.items) out.set(r._recordId, r.values);
    cursor = page.body.nextCursor;
  } while (cursor);
  return out;
}

async function fileBytes(inst: TestInstance, hash: string): Promise<Uint8Array> {
  const url = await call(`${inst.url}/submissions/blob/${inst.credentials.userId}/${hash}`, {
    token: inst.credentials.ownerToken,
  });
  assert.equal(url.status, 200, JSON.stringify(url.body));
  const res = await fetch(url.body.url);
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}

Deno.test("backup under write load, restore elsewhere: every acknowledged submission, record and file", async () => {
  const inst = await startInstance();
  const work = await Deno.makeTempDir({ prefix: "sealpost-backup-test-" });
  let restored: TestInstance | null = null;
  let stop = false;
  try {
    // Plain files: the restored blobs are compared with the bytes sent.
    const { form, pin } = await vaultForm(inst, "Backup", FIELDS, { files: "plain" });
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const files = new Map<string, Uint8Array>();
    const photos: Awaited<ReturnType<typeof uploadFile>>[] = [];
    for (let i = 0; i < 3; i++) {
      const data = crypto.getRandomValues(new Uint8Array(2000 + i * 1500));
      const ref = await uploadFile(manifest, { data, mime: "image/png" });
      files.set(ref.hash, data);
      photos.push(ref);
    }
    // Submissions flow from four senders until told to stop.
    const acked: { id: string; at: number }[] = [];
    let n = 0;
    const sender = async () => {
      while (!stop) {
        const i = n++;
        const receipt = await submitForm(manifest, {
          name: `sender ${i}`,
          ...(i % 4 === 0 ? { photo: photos[i % photos.length] } : {}),
        });
        acked.push({ id: receipt.submissionId, at: performance.now() });
      }
    };
    const senders = [sender(), sender(), sender(), sender()];
    while (acked.length < 40) await new Promise((r) => setTimeout(r, 20));

    const archive = join(work, "backup.tar");
    // A pre-signed read URL made before the backup (signed with the relay secret).
    const signed = await call(
      `${inst.url}/submissions/blob/${inst.credentials.userId}/${photos[0].hash}`,
      { token: inst.credentials.ownerToken },
    );
    const records = await recordsOf(inst, form.formId);
    const started = performance.now();
    const backup = await sealpost(["backup", "--data", inst.config.data_dir, "--out", archive]);
    const ackedDuring = acked.filter((a) => a.at > started).length;
    stop = true;
    await Promise.all(senders);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /written to .*backup\.tar/);
    assert.ok(ackedDuring > 0, "submissions were flowing while the backup ran");
    assert.equal((await Deno.stat(archive)).mode! & 0o777, 0o600, "the archive holds secrets");
    const before = acked.filter((a) => a.at < started).map((a) => a.id);
    assert.ok(before.length >= 40 && records.size > 0);

    const dir = join(work, "restored");
    const result = await sealpost(["restore", archive, "--data", dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((await Deno.stat(join(dir, "relay.secret"))).mode! & 0o777, 0o600);
    restored = await startInstance({}, dir);
    // Same secrets: the old tokens and pre-signed URLs work against the restored instance.
    assert.deepEqual(restored.credentials, inst.credentials);
    const oldUrl = new URL(signed.body.url);
    const again = await fetch(`${restored.url}${oldUrl.pathname}${oldUrl.search}`);
    assert.equal(again.status, 200);
    assert.deepEqual(new Uint8Array(await again.arrayBuffer()), files.get(photos[0].hash));
    // Every submission acknowledged before the backup started becomes a record (the ones
    // still queued at snapshot time are ingested by the restored vault).
    const end = Date.now() + 30_000;
    let after = await recordsOf(restored, form.formId);
    while (before.some((id) => !after.has(id)) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
      after = await recordsOf(restored, form.formId);
    }
    const lost = before.filter((id) => !after.has(id));
    assert.deepEqual(lost, [], "acknowledged before the backup, missing after the restore");
    for (const [id, values] of records) assert.deepEqual(after.get(id), values, id);
    // Files referenced by restored records resolve, with the same bytes.
    const referenced = new Set<string>();
    for (const values of after.values()) {
      const photo = values.photo as { hash?: string } | undefined;
      if (photo?.hash) referenced.add(photo.hash);
    }
    assert.ok(referenced.size > 0);
    for (const hash of referenced) {
      assert.deepEqual(await fileBytes(restored, hash), files.get(hash));
    }
  } finally {
    stop = true;
    await restored?.close();
    await inst.close();
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("restore refuses a non-empty data dir and a damaged archive, leaving the target empty", async () => {
  const inst = await startInstance();
  const work = await Deno.makeTempDir({ prefix: "sealpost-restore-test-" });
  try {
    const archive = join(work, "backup.tar");
    const made = await sealpost(["backup", "--data", inst.config.data_dir, "--out", archive]);
    assert.equal(made.code, 0, made.stderr);
    const again = await sealpost(["backup", "--data", inst.config.data_dir, "--out", archive]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists; choose a new file/);

    const inside = await sealpost([
      "backup",
      "--data",
      inst.config.data_dir,
      "--out",
      join(inst.config.data_dir, "b.tar"),
    ]);
    assert.equal(inside.code, 1);
    assert.match(inside.stderr, /is inside the data dir/);

    const full = await sealpost(["restore", archive, "--data", inst.config.data_dir]);
    assert.equal(full.code, 1);
    assert.match(full.stderr, /is not empty; restore into a new or empty data dir/);

    // One flipped byte inside the store snapshot (first entry, after its 512-byte header).
    const bytes = await Deno.readFile(archive);
    bytes[512 + 100] ^= 0xff;
    const damaged = join(work, "damaged.tar");
    await Deno.writeFile(damaged, bytes);
    const target = join(work, "target");
    const broken = await sealpost(["restore", damaged, "--data", target]);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /store\/sealpost\.kv" is damaged/);
    assert.deepEqual([...Deno.readDirSync(target)], [], "nothing left behind");

    // Cut short: the manifest (the last entry) is missing.
    const cut = join(work, "cut.tar");
    await Deno.writeFile(cut, bytes.subarray(0, 1024 + 512));
    const truncated = await sealpost(["restore", cut, "--data", join(work, "t2")]);
    assert.equal(truncated.code, 1);
    assert.match(truncated.stderr, /cannot be restored|ends inside|no sealpost-backup\.json/);

    const usage = await sealpost(["restore", archive]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Missing --data DIR/);
    const noOut = await sealpost(["backup", "--data", inst.config.data_dir]);
    assert.equal(noOut.code, 2);
    assert.match(noOut.stderr, /Missing --out FILE/);
    const noStore = await sealpost(["backup", "--data", join(work, "nothing"), "--out", cut + "2"]);
    assert.equal(noStore.code, 1);
    assert.match(noStore.stderr, /No store in/);
    const help = await sealpost(["backup", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: sealpost backup --out FILE/);
  } finally {
    await inst.close();
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("backup with store.backend = postgres: writes nothing and names what to back up instead", async () => {
  const work = await Deno.makeTempDir({ prefix: "sealpost-backup-pg-" });
  try {
    const archive = join(work, "backup.tar");
    const answer = await sealpost(["backup", "--data", join(work, "data"), "--out", archive], {
      SEALPOST_STORE_BACKEND: "postgres",
      SEALPOST_POSTGRES_URL: "postgres://sealpost:hunter2secret@db.internal:5433/sealpost",
    });
    assert.equal(answer.code, 1);
    assert.match(answer.stderr, /PostgreSQL database db\.internal:5433\/sealpost/);
    assert.match(answer.stderr, /pg_dump --format=custom/);
    assert.match(answer.stderr, /vault\/keys/);
    assert.doesNotMatch(answer.stderr, /hunter2secret/, "the password is never shown");
    assert.doesNotMatch(answer.stderr, /\bat /, "no stack trace");
    await assert.rejects(Deno.stat(archive), Deno.errors.NotFound);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});
