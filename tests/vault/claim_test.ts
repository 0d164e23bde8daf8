import assert from "node:assert/strict";
import { fetchManifest, submitForm, uploadFile } from "../../src/sdk/mod.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { KvBlobMeta } from "../../src/store/kv/blob_meta.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

Deno.test("ingest claims the owned files a record refers to, so the orphan sweep keeps them", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const { form, pin } = await vaultForm(inst, "Photos", [
      { id: "photo", label: "Photo", kind: "image", required: true },
    ]);
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const bytes = crypto.getRandomValues(new Uint8Array(4096));
    const photo = await uploadFile(manifest, { data: bytes, fileName: "p.png", mime: "image/png" });
    assert.equal(photo.owned, true);

    const kv = await openStore(inst.config.data_dir);
    try {
      const meta = new KvBlobMeta(kv);
      const unclaimed = async () =>
        (await Array.fromAsync(meta.orphans(Number.MAX_SAFE_INTEGER))).map((c) => c.hash);
      assert.deepEqual(await unclaimed(), [photo.hash], "uploaded, not yet claimed");
      const receipt = await submitForm(manifest, { photo });
      const recordUrl = `${inst.url}/vault/forms/${form.formId}/records/${receipt.submissionId}`;
      const end = Date.now() + 10_000;
      while ((await call(recordUrl, { token })).status !== 200 && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const record = await call(recordUrl, { token });
      assert.equal(record.status, 200);
      assert.equal(record.body.values.photo.hash, photo.hash);
      assert.deepEqual(await unclaimed(), [], "the record's file is claimed");
    } finally {
      kv.close();
    }
  } finally {
    await inst.close();
  }
});
