import assert from "node:assert/strict";
import { join } from "node:path";
import { ageIdentity, ageRecipient, decryptFileStream } from "../../src/crypto/age.ts";
import { HttpRelayLink } from "../../src/vault/index.ts";
import { fetchManifest, submitForm } from "../../src/sdk/mod.ts";
import { sha256Hex, uploadFile } from "../../src/sdk/upload.ts";
import { blobPathParts } from "../../src/blobs/fs_store.ts";
import { ConsoleClient, firstPerson } from "../console/_client.ts";
import { startReceiver } from "../webhooks/_harness.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { AGE } from "../_support/tools.ts";
import { s3Client } from "../_support/services/radosgw.ts";
import { startOn } from "../blobs/_backends.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "photo", label: "Photo", kind: "image" },
  { id: "doc", label: "Document", kind: "attachment" },
];
const enc = new TextEncoder();
const MARKER = "SEALPOST-PLAINTEXT-MARKER-7f3a";
const PNG = new Uint8Array([...Uint8Array.fromBase64("iVBORw0KGgo="), ...enc.encode(MARKER)]);
const DOC = enc.encode(`${MARKER} report `.repeat(20_000)); // ~700 KB, several age chunks

async function encryptedForm(inst: TestInstance, files: "plain" | "encrypted" = "encrypted") {
  const token = inst.credentials.ownerToken;
  const db = await call(`${inst.url}/vault/databases`, {
    method: "POST",
    token,
    json: { name: "main" },
  });
  const form = await call(`${inst.url}/vault/forms`, {
    method: "POST",
    token,
    json: {
      databaseId: db.body.id,
      title: "Tips",
      fields: FIELDS,
      files,
      publish: true,
    },
  });
  assert.equal(form.status, 201, JSON.stringify(form.body));
  assert.equal(form.body.files, files);
  const key = await call(`${inst.url}/vault/manifest-key`, { token });
  const manifest = await fetchManifest(form.body.formId, {
    relayUrl: inst.url,
    pin: key.body.fingerprint,
  });
  return { token, db: db.body, formId: form.body.formId as string, manifest };
}

async function waitRecord(inst: TestInstance, token: string, formId: string, id: string) {
  const url = `${inst.url}/vault/forms/${formId}/records/${id}`;
  for (let i = 0; i < 200; i++) {
    const res = await call(url, { token });
    if (res.status === 200) return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("Timed out waiting for the record");
}

/** Every file under `dir` whose bytes contain `marker`. */
async function filesContaining(dir: string, marker: string): Promise<string[]> {
  const needle = enc.encode(marker);
  const found: string[] = [];
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(path)) {
      const child = join(path, entry.name);
      if (entry.isDirectory) await walk(child);
      else if (entry.isFile && contains(await Deno.readFile(child), needle)) found.push(child);
    }
  };
  await walk(dir);
  return found;
}

function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

async function bytesOf(url: string): Promise<Response & { data?: Uint8Array }> {
  const res = await fetch(url);
  return Object.assign(res, { data: res.ok ? await res.bytes() : undefined });
}

Deno.test({
  name:
    "encrypted files end to end: relay stores no plaintext; record, console and webhook URLs serve it",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const receiver = startReceiver(() => new Response(null, { status: 204 }));
    const inst = await startInstance();
    try {
      const { token, formId, manifest } = await encryptedForm(inst);
      // The signed manifest states the mode.
      assert.equal(manifest.files, "encrypted");
      const hook = await call(`${inst.url}/owner/forms/${formId}/webhooks`, {
        method: "POST",
        token,
        json: {
          url: receiver.url,
          signingSecret: "encrypted-files-secret-0123",
          events: ["create"],
        },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));

      const receipt = await submitForm(manifest, { name: "Source" }, {
        files: {
          photo: { data: PNG, mime: "image/png", fileName: "leak.png" },
          doc: { data: DOC, mime: "text/plain", fileName: "report.txt" },
        },
      });
      const record = await waitRecord(inst, token, formId, receipt.submissionId);
      const { photo, doc } = record.values;
      assert.equal(photo.encryption, "age");
      assert.equal(photo.mime, "image/png");
      assert.equal(photo.sizeBytes, PNG.length);
      assert.equal(doc.fileName, "report.txt");
      assert.equal(doc.sizeBytes, DOC.length);

      // The owner API: a fresh link that serves the plaintext.
      const recordUrl = `${inst.url}/vault/forms/${formId}/records/${receipt.submissionId}`;
      const owner = await call(`${recordUrl}/files/doc`, { token });
      assert.equal(owner.status, 200, JSON.stringify(owner.body));
      assert.equal(owner.body.encrypted, true);
      assert.ok(owner.body.url.startsWith(`${inst.url}/vault-files/${formId}/${doc.hash}?`));
      const fromOwner = await bytesOf(owner.body.url);
      assert.equal(fromOwner.status, 200);
      assert.deepEqual(fromOwner.data, DOC);
      assert.match(
        fromOwner.headers.get("content-disposition")!,
        /^attachment; filename="report.txt"/,
      );
      assert.equal(
        (await call(`${recordUrl}/files/name`, { token })).body.error.code,
        "file_not_found",
      );
      assert.equal((await call(`${recordUrl}/files/doc`)).status, 401);

      // The webhook body: Image and Attachment are string URLs that serve the plaintext.
      const [delivered] = await receiver.waitFor(1);
      const body = JSON.parse(delivered.text);
      assert.equal(typeof body.photo, "string");
      const hookPhoto = await bytesOf(body.photo);
      assert.equal(hookPhoto.headers.get("content-type"), "image/png");
      assert.match(hookPhoto.headers.get("content-disposition")!, /^inline/);
      assert.deepEqual(hookPhoto.data, PNG);
      assert.deepEqual((await bytesOf(body.doc)).data, DOC);

      // The console shows the image inline and the attachment as a download, both decrypted.
      const browser = new ConsoleClient(inst.url);
      await browser.signIn(await firstPerson(inst));
      const html = await browser.page(`/console/forms/${formId}/records/${receipt.submissionId}`);
      const links = [...html.matchAll(/(?:src|href)="([^"]*\/vault-files\/[^"]+)"/g)]
        .map((m) => m[1].replaceAll("&amp;", "&"));
      assert.equal(links.length, 2, html);
      assert.match(html, /<img[^>]+vault-files/);
      const shown = await Promise.all(
        links.map(async (l) => (await bytesOf(new URL(l, inst.url).href)).data),
      );
      assert.deepEqual(shown.map((b) => b?.length).sort(), [DOC.length, PNG.length].sort());

      // A forged or expired link is refused.
      const forged = new URL(owner.body.url);
      forged.searchParams.set("size", "5");
      const refused = await call(forged.href);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, "invalid_link");

      // The relay's data dir never holds the plaintext (blobs, KV, logs: every file).
      await inst.server.shutdown().catch(() => {});
      assert.deepEqual(await filesContaining(inst.config.data_dir, MARKER), []);
      // (The search does find the marker where it is.)
      const control = join(inst.config.data_dir, "control.bin");
      await Deno.writeFile(control, DOC.subarray(0, 1000));
      assert.deepEqual(await filesContaining(inst.config.data_dir, MARKER), [control]);
      // What the relay stores is an age file, its size padded.
      const blobDir = join(inst.config.data_dir, "blobs");
      const stored = await Deno.readFile(
        join(blobDir, ...blobPathParts({ userId: inst.credentials.userId, hash: doc.hash })),
      );
      assert.equal(await sha256Hex(stored), doc.hash);
      assert.ok(new TextDecoder().decode(stored.subarray(0, 21)) === "age-encryption.org/v1");
    } finally {
      await inst.close().catch(() => {});
      await receiver.close();
    }
  },
});

Deno.test("encrypted files: the age CLI's file is read back; a tampered file is refused clearly", async () => {
  const inst = await startInstance();
  try {
    const { token, db, formId, manifest } = await encryptedForm(inst);
    // A sender with the age CLI, encrypting to the form's recipient key.
    const plain = enc.encode(`${MARKER} from the age CLI\n`.repeat(100));
    const child = new Deno.Command(AGE, {
      args: ["-r", ageRecipient(Uint8Array.fromBase64(manifest.recipient.publicKey))],
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const w = child.stdin.getWriter();
    await w.write(plain);
    await w.close();
    const ciphertext = (await child.output()).stdout;
    // Uploaded as is (plain flow on the ciphertext), then referenced as an encrypted file.
    const uploaded = await uploadFile(manifest, {
      data: ciphertext,
      mime: "application/octet-stream",
    }, { encrypt: false });
    assert.equal(uploaded.encryption, "age", "the signed manifest forces encryption");
    const raw = await uploadFile({ ...manifest, files: "plain" }, {
      data: ciphertext,
      mime: "application/octet-stream",
    });
    const ref = {
      ...raw,
      mime: "text/plain",
      fileName: "cli.txt",
      sizeBytes: plain.length,
      encryption: "age",
    };
    const receipt = await submitForm(manifest, { name: "CLI", doc: ref });
    const recordUrl = `${inst.url}/vault/forms/${formId}/records/${receipt.submissionId}`;
    await waitRecord(inst, token, formId, receipt.submissionId);
    const link = await call(`${recordUrl}/files/doc`, { token });
    const served = await bytesOf(link.body.url);
    assert.equal(served.headers.get("content-length"), String(plain.length));
    assert.deepEqual(served.data, plain);
    // A reference claiming more bytes than the file holds: the download fails, never
    // completes short.
    const liar = await submitForm(manifest, {
      name: "Liar",
      doc: { ...ref, sizeBytes: plain.length + 100_000 },
    });
    await waitRecord(inst, token, formId, liar.submissionId);
    const liarUrl = `${inst.url}/vault/forms/${formId}/records/${liar.submissionId}/files/doc`;
    const short = await fetch((await call(liarUrl, { token })).body.url);
    assert.equal(short.status, 200);
    await assert.rejects(short.bytes());

    // The owner's key, exported as an age identity, opens what the SDK uploaded.
    const sdkReceipt = await submitForm(manifest, { name: "SDK" }, {
      files: { doc: { data: plain, mime: "text/plain", fileName: "sdk.txt" } },
    });
    const sdkRecord = await waitRecord(inst, token, formId, sdkReceipt.submissionId);
    const blobPath = join(
      inst.config.data_dir,
      "blobs",
      ...blobPathParts({ userId: inst.credentials.userId, hash: sdkRecord.values.doc.hash }),
    );
    const pair = await inst.server.vault!.keys.databaseKey(db.fingerprint);
    const idFile = join(inst.config.data_dir, "identity.txt");
    await Deno.writeTextFile(idFile, ageIdentity(pair.secretKey) + "\n");
    const out = await new Deno.Command(AGE, { args: ["-d", "-i", idFile, blobPath] }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    assert.deepEqual(out.stdout.subarray(0, plain.length), plain);
    // What a vault-role process does: the ciphertext over the relay's HTTP API, decrypted
    // while it streams (a fetch body: read with BYOB into the decrypter's own buffers).
    const overHttp = await new HttpRelayLink(inst.url, token).readBlob(
      inst.credentials.userId,
      sdkRecord.values.doc.hash,
    );
    assert.ok(overHttp);
    const opened = await decryptFileStream(overHttp, pair.secretKey, plain.length);
    assert.deepEqual(new Uint8Array(await new Response(opened).arrayBuffer()), plain);

    // Tampered at rest on the relay: the vault refuses it with a clear error.
    const stored = await Deno.readFile(blobPath);
    stored[stored.length - 20] ^= 0xff;
    await Deno.writeFile(blobPath, stored);
    const sdkLink = await call(
      `${inst.url}/vault/forms/${formId}/records/${sdkReceipt.submissionId}/files/doc`,
      { token },
    );
    const tampered = await call(sdkLink.body.url);
    assert.equal(tampered.status, 422);
    assert.equal(tampered.body.error.code, "file_undecryptable");
    assert.match(tampered.body.error.message, /does not decrypt/);
  } finally {
    await inst.close();
  }
});

Deno.test("encrypted files: a plain file on an encrypted form, or the reverse, is quarantined", async () => {
  const inst = await startInstance();
  try {
    const token = inst.credentials.ownerToken;
    const quarantined = async (submissionId: string) => {
      for (let i = 0; i < 200; i++) {
        const res = await call(`${inst.url}/vault/quarantine`, { token });
        const row = res.body.items.find((q: { submissionId: string }) =>
          q.submissionId === submissionId
        );
        if (row) return row;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error("Timed out waiting for the quarantine row");
    };
    // A sender (or a relay lying about the manifest) uploads plaintext for an encrypted form.
    const { formId, manifest } = await encryptedForm(inst);
    const plainRef = await uploadFile({ ...manifest, files: "plain" }, {
      data: DOC,
      mime: "text/plain",
      fileName: "report.txt",
    });
    assert.equal(plainRef.encryption, undefined);
    const leaked = await submitForm(manifest, { name: "Plain", doc: plainRef });
    const row = await quarantined(leaked.submissionId);
    assert.equal(row.code, "file_mode_mismatch");
    assert.equal(row.formId, formId);
    assert.match(
      row.reason,
      /^values\.doc: the file is not encrypted \(no encryption: "age"\), but form version 1 says files: "encrypted"/,
    );
    assert.equal(
      (await call(`${inst.url}/vault/forms/${formId}/records/${leaked.submissionId}`, { token }))
        .status,
      404,
    );

    // The reverse: a reference claiming encryption on a plain form.
    const plain = await encryptedForm(inst, "plain");
    const sealedRef = await uploadFile(plain.manifest, { data: PNG, mime: "image/png" }, {
      encrypt: true,
    });
    assert.equal(sealedRef.encryption, "age");
    const odd = await submitForm(plain.manifest, { name: "Odd", photo: sealedRef });
    const reverse = await quarantined(odd.submissionId);
    assert.equal(reverse.code, "file_mode_mismatch");
    assert.match(
      reverse.reason,
      /^values\.photo: the file says encryption: "age", but form version 1 says files: "plain"$/,
    );
  } finally {
    await inst.close();
  }
});

Deno.test({
  name: "[s3] encrypted files on the object store: uploaded straight to it, served decrypted",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const inst = await startOn("s3");
    try {
      const { token, formId, manifest } = await encryptedForm(inst);
      const receipt = await submitForm(manifest, { name: "Source" }, {
        files: { doc: { data: DOC, mime: "text/plain", fileName: "report.txt" } },
      });
      const record = await waitRecord(inst, token, formId, receipt.submissionId);
      const { doc } = record.values;
      assert.equal(doc.encryption, "age");
      // The bytes are the store's: an age file whose hash is the reference's.
      const stored = await s3Client(inst.s3!).fetch(
        `${inst.s3!.endpoint}/${inst.s3!.bucket}/${inst.credentials.userId}/${doc.hash}`,
      );
      const ciphertext = await stored.bytes();
      assert.equal(stored.status, 200);
      assert.equal(await sha256Hex(ciphertext), doc.hash);
      assert.equal(contains(ciphertext, enc.encode(MARKER)), false);
      // The vault reads them over a read URL of the store, and serves the plaintext.
      const recordUrl = `${inst.url}/vault/forms/${formId}/records/${receipt.submissionId}`;
      const owner = await call(`${recordUrl}/files/doc`, { token });
      assert.equal(owner.status, 200, JSON.stringify(owner.body));
      assert.deepEqual((await bytesOf(owner.body.url)).data, DOC);
    } finally {
      await inst.close().catch(() => {});
    }
  },
});
