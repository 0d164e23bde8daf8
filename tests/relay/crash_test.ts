import assert from "node:assert/strict";
import { envelopeFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { spawnServer } from "../_support/process.ts";
import { call } from "../_support/server.ts";

Deno.test({
  name: "kill -9 while 4 clients post: every acknowledged submission survives the restart",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dataDir = await Deno.makeTempDir({ prefix: "sealpost-crash-" });
    const first = await spawnServer(dataDir);
    const db = await registerDatabase(first);
    await publishForm(first, db, "contact");
    const acknowledged = new Set<string>();
    let stop = false;
    const client = async () => {
      while (!stop) {
        const envelope = await envelopeFor(db, "contact");
        try {
          const res = await call(`${first.url}/submissions`, { method: "POST", json: envelope });
          if (res.status === 200) acknowledged.add(res.body.submissionId);
        } catch {
          return; // the server is gone
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    await new Promise((r) => setTimeout(r, 1500));
    await first.stop("SIGKILL");
    stop = true;
    await Promise.all(clients);
    assert.ok(acknowledged.size > 20, `only ${acknowledged.size} acknowledged before the kill`);

    const second = await spawnServer(dataDir, {}, first.port);
    try {
      const queued = new Set<string>();
      let cursor: string | null = null;
      for (let page = 0; page < 1000; page++) {
        const res: { body: { items: { submissionId: string }[]; nextCursor: string | null } } =
          await call(
            `${second.url}/owner/queues/${db.fingerprint}?limit=500${
              cursor ? `&after=${cursor}` : ""
            }`,
            { token: second.credentials.ownerToken },
          );
        for (const item of res.body.items) queued.add(item.submissionId);
        cursor = res.body.nextCursor;
        if (!cursor) break;
      }
      const lost = [...acknowledged].filter((id) => !queued.has(id));
      assert.deepEqual(
        lost,
        [],
        `${lost.length} of ${acknowledged.size} acknowledged submissions lost`,
      );
    } finally {
      await second.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
