import assert from "node:assert/strict";
import { join } from "node:path";
import { ageIdentity, ageRecipient } from "../../src/crypto/age.ts";
import { paddedSize } from "../../src/crypto/age_encrypt.ts";
import { blobPathParts } from "../../src/blobs/fs_store.ts";
import { sealpost } from "../_support/cli.ts";
import { call, startInstance } from "../_support/server.ts";
import { AGE } from "../_support/tools.ts";
import { vaultForm } from "../_support/vault.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "doc", label: "Document", kind: "attachment" },
];

Deno.test("CLI: form --files encrypted, submit --file encrypts, blob put --encrypt", async () => {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir();
  try {
    const { token, db, form, pin } = await vaultForm(inst, "Tips", FIELDS, { files: "plain" });
    const base = ["--url", inst.url, "--token", token, "--json"];
    const fieldsFile = join(dir, "fields.json");
    await Deno.writeTextFile(fieldsFile, JSON.stringify(FIELDS));
    const bad = await sealpost([
      "form",
      "update",
      form.formId,
      "--fields",
      fieldsFile,
      "--files",
      "sealed",
      ...base,
    ]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--files must be "encrypted" or "plain"/);
    const updated = await sealpost([
      "form",
      "update",
      form.formId,
      "--fields",
      fieldsFile,
      "--files",
      "encrypted",
      "--publish",
      ...base,
    ]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(JSON.parse(updated.stdout).files, "encrypted");
    const manifest = await call(`${inst.url}/forms/${form.formId}/manifest`);
    assert.equal(manifest.body.files, "encrypted");

    const plain = new TextEncoder().encode("CLI-MARKER ".repeat(500));
    const file = join(dir, "notes.txt");
    await Deno.writeFile(file, plain);
    const values = join(dir, "values.json");
    await Deno.writeTextFile(values, JSON.stringify({ name: "Ada" }));
    const submitted = await sealpost([
      "submit",
      form.formId,
      "--values",
      values,
      "--pin",
      pin,
      "--relay",
      inst.url,
      "--file",
      `doc=${file}`,
      "--json",
    ]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const { submissionId } = JSON.parse(submitted.stdout);
    const recordUrl = `${inst.url}/vault/forms/${form.formId}/records/${submissionId}`;
    let record = null;
    for (let i = 0; i < 200 && !record; i++) {
      const res = await call(recordUrl, { token });
      if (res.status === 200) record = res.body;
      else await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(record, "the record");
    assert.equal(record.values.doc.encryption, "age");
    assert.equal(record.values.doc.mime, "text/plain");
    const link = await call(`${recordUrl}/files/doc`, { token });
    assert.deepEqual(await (await fetch(link.body.url)).bytes(), plain);

    // records export --with-files: the decrypted files beside the records.
    const filesDir = join(dir, "export");
    const exported = await sealpost([
      "records",
      "export",
      form.formId,
      "--with-files",
      filesDir,
      "--out",
      join(dir, "records.jsonl"),
      ...base,
    ]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(
      await Deno.readFile(join(filesDir, submissionId, "doc", "notes.txt")),
      plain,
    );
    const lines = (await Deno.readTextFile(join(dir, "records.jsonl"))).trim().split("\n");
    assert.equal(JSON.parse(lines[0]).values.doc.encryption, "age");

    // blob put --encrypt to the form's age recipient: the age CLI opens the stored bytes.
    const recipient = ageRecipient(Uint8Array.fromBase64(db.publicKey));
    const put = await sealpost([
      "blob",
      "put",
      file,
      "--user",
      inst.credentials.userId,
      "--url",
      inst.url,
      "--encrypt",
      "--recipient",
      recipient,
      "--json",
    ]);
    assert.equal(put.code, 0, put.stderr);
    const ref = JSON.parse(put.stdout);
    assert.equal(ref.encryption, "age");
    assert.equal(ref.mime, "text/plain");
    assert.equal(ref.sizeBytes, plain.length);
    const stored = join(
      inst.config.data_dir,
      "blobs",
      ...blobPathParts({ userId: inst.credentials.userId, hash: ref.hash }),
    );
    const pair = await inst.server.vault!.keys.databaseKey(db.fingerprint);
    const idFile = join(dir, "identity.txt");
    await Deno.writeTextFile(idFile, ageIdentity(pair.secretKey) + "\n");
    const out = await new Deno.Command(AGE, { args: ["-d", "-i", idFile, stored] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.equal(out.stdout.length, paddedSize(plain.length));
    assert.deepEqual(out.stdout.subarray(0, plain.length), plain);

    const noKey = await sealpost(["blob", "put", file, "--user", "u", "--encrypt"]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /--encrypt needs --recipient/);
    const badKey = await sealpost([
      "blob",
      "put",
      file,
      "--user",
      "u",
      "--encrypt",
      "--recipient",
      "age1xyz",
    ]);
    assert.equal(badKey.code, 2);
    assert.match(badKey.stderr, /not an age X25519 recipient/);
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("CLI: form create encrypts files by default; --files plain, --drafts on|off", async () => {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir();
  try {
    const { token, db } = await vaultForm(inst, "First", FIELDS);
    const base = ["--url", inst.url, "--token", token, "--json"];
    const fieldsFile = join(dir, "fields.json");
    await Deno.writeTextFile(fieldsFile, JSON.stringify(FIELDS));
    const create = (...extra: string[]) =>
      sealpost(["form", "create", "--db", db.id, "--title", "T", "--fields", fieldsFile, ...extra]);
    const byDefault = await create("--publish", ...base);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    const form = JSON.parse(byDefault.stdout);
    assert.equal(form.files, "encrypted");
    assert.equal(form.drafts, false);
    const manifest = await call(`${inst.url}/forms/${form.formId}/manifest`);
    assert.equal(manifest.body.files, "encrypted");
    assert.equal(manifest.body.drafts, undefined);
    const me = await call(`${inst.url}/owner/me`, { token });
    // The first user has no display name: the manifest then names no owner (the page says "the
    // form's owner"); a named user's forms carry { name } (tests/web/storage_test.ts).
    assert.equal(me.body.user.name, "");
    assert.equal(manifest.body.owner, undefined, "no owner name to sign");

    const plain = await create("--files", "plain", "--drafts", "on", ...base);
    assert.equal(plain.code, 0, plain.stderr);
    const plainForm = JSON.parse(plain.stdout);
    assert.equal(plainForm.files, "plain");
    assert.equal(plainForm.drafts, true);
    const show = await sealpost(["form", "show", plainForm.formId, ...base.slice(0, 4)]);
    assert.match(show.stdout, /files plain, drafts on/);
    const off = await sealpost([
      "form",
      "update",
      plainForm.formId,
      "--fields",
      fieldsFile,
      "--drafts",
      "off",
      "--publish",
      ...base,
    ]);
    assert.equal(off.code, 0, off.stderr);
    assert.equal(JSON.parse(off.stdout).drafts, false);
    assert.equal(JSON.parse(off.stdout).files, "plain", "left out, the file mode is kept");
    const bad = await create("--drafts", "maybe", ...base);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--drafts must be "on" or "off"/);
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});
