/**
 * Storage trouble over real HTTP, on a small tmpfs this test mounts (needs root): filled to
 * the brim, writes answer 503 `storage_unavailable` with Retry-After and /healthz says
 * `degraded`; once space is freed everything works again and nothing acknowledged is lost.
 */
import assert from "node:assert/strict";
import { envelopeFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";
import { random } from "../blobs/_helpers.ts";
import { upload } from "../blobs/_http.ts";

const isRoot = Deno.uid() === 0;

async function mountTmpfs(dir: string, size: string) {
  const { success, stderr } = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir],
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`mount: ${new TextDecoder().decode(stderr)}`);
}

async function unmount(dir: string) {
  await new Deno.Command("umount", { args: [dir] }).output();
}

/** Writes filler until the file system refuses (bounded by the tmpfs size). */
async function fillUp(path: string): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true });
  const chunk = new Uint8Array(64 * 1024);
  try {
    for (;;) await file.write(chunk);
  } catch (err) {
    assert.match((err as Error).message, /No space left on device/);
  } finally {
    file.close();
  }
  // The last pages too: small writes until even one byte is refused.
  const tail = await Deno.open(`${path}.tail`, { write: true, create: true });
  try {
    for (;;) await tail.write(new Uint8Array(512));
  } catch {
    /* full */
  } finally {
    tail.close();
  }
}

Deno.test({
  name: "tmpfs full: 503 storage_unavailable + degraded health; freed: recovers, nothing lost",
  ignore: !isRoot,
  sanitizeResources: false,
  fn: async () => {
    const mountPoint = await Deno.makeTempDir({ prefix: "sealpost-tmpfs-" });
    await mountTmpfs(mountPoint, "24m");
    try {
      const inst = await startInstance({}, `${mountPoint}/data`);
      try {
        const db = await registerDatabase(inst);
        await publishForm(inst, db, "contact");
        const before = await envelopeFor(db, "contact");
        const ok = await call(`${inst.url}/submissions`, { method: "POST", json: before });
        assert.equal(ok.status, 200);

        await fillUp(`${mountPoint}/filler`);
        const refused = await call(`${inst.url}/submissions`, {
          method: "POST",
          json: await envelopeFor(db, "contact"),
        });
        assert.equal(refused.status, 503, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, "storage_unavailable");
        assert.ok(Number(refused.headers.get("retry-after")) > 0);
        const { put } = await upload(inst, random(256 * 1024), { mime: "image/png" });
        assert.equal(put.status, 503, JSON.stringify(put.body));
        assert.equal(put.body.error.code, "storage_unavailable");
        const health = await call(`${inst.url}/healthz`);
        assert.equal(health.status, 503);
        assert.equal(health.body.status, "degraded");
        assert.equal(health.body.reason, "disk full");

        await Deno.remove(`${mountPoint}/filler`);
        await Deno.remove(`${mountPoint}/filler.tail`);
        await new Promise((resolve) => setTimeout(resolve, 2100)); // the health probe's reuse
        const healthy = await call(`${inst.url}/healthz`);
        assert.equal(healthy.status, 200);
        assert.equal(healthy.body.status, "ok");
        const after = await envelopeFor(db, "contact");
        assert.equal(
          (await call(`${inst.url}/submissions`, { method: "POST", json: after })).status,
          200,
        );
        assert.equal(
          (await upload(inst, random(256 * 1024), { mime: "image/png" })).put.status,
          201,
        );
        const queue = await call(`${inst.url}/owner/queues/${db.fingerprint}`, {
          token: inst.credentials.ownerToken,
        });
        const ids = queue.body.items.map((item: { submissionId: string }) => item.submissionId);
        assert.ok(ids.includes(before.submissionId), "acknowledged before the disk filled");
        assert.ok(ids.includes(after.submissionId), "acknowledged after it recovered");
      } finally {
        await inst.close();
      }
    } finally {
      await unmount(mountPoint);
      await Deno.remove(mountPoint, { recursive: true });
    }
  },
});
