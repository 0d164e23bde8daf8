/**
 * `GET /owner/queues/{fingerprint}` with `lease` and `wait` on two relay processes sharing one
 * PostgreSQL database: a long poll on one relay wakes on a submission to the other (NOTIFY),
 * and leasing reads through the two relays split the queue.
 */
import assert from "node:assert/strict";
import { envelopeFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";
import { freshPg } from "../store/contract/_pg.ts";

Deno.test("postgres, two relays: a long poll on one wakes on the other's intake; leasing reads through both split the queue", async () => {
  const pg = await freshPg();
  const env = {
    SEALPOST_SERVER_ROLE: "relay",
    SEALPOST_STORE_BACKEND: "postgres",
    SEALPOST_POSTGRES_URL: `${pg.url}?search_path=${pg.schema}`,
    SEALPOST_STORE_POSTGRES_POOL_SIZE: "4",
  };
  const first = await startInstance(env);
  const second = await startInstance(env); // joins the initialised database
  try {
    const token = first.credentials.ownerToken;
    const db = await registerDatabase(first);
    await publishForm(first, db, "contact");
    const list = async (url: string, query: string) => {
      const res = await call(`${url}/owner/queues/${db.fingerprint}${query}`, { token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items as { submissionId: string; seq: number }[];
    };
    const submit = async (url: string) => {
      const envelope = await envelopeFor(db, "contact");
      const res = await call(`${url}/submissions`, { method: "POST", json: envelope });
      assert.equal(res.status, 200);
      return envelope.submissionId;
    };

    const waiting = list(second.url, "?wait=20&lease=60");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = Date.now();
    const id = await submit(first.url);
    assert.deepEqual((await waiting).map((i) => i.submissionId), [id]);
    // Well before the wait's end and the relay's 5 s recheck: the NOTIFY woke it.
    assert.ok(Date.now() - sent < 4500, "woken by the other relay's commit");

    for (let i = 0; i < 12; i++) await submit(i % 2 ? first.url : second.url);
    const [a, b] = await Promise.all([
      list(first.url, "?limit=6&lease=60"),
      list(second.url, "?limit=6&lease=60"),
    ]);
    const seqs = [...a, ...b].map((i) => i.seq);
    assert.equal(seqs.length, 12);
    assert.equal(new Set(seqs).size, 12, "no envelope read by both");
    assert.deepEqual(await list(first.url, "?lease=60"), [], "all leased");
    assert.equal((await list(second.url, "")).length, 13, "a plain read lists all");
  } finally {
    await second.close();
    await first.close();
    await pg.close();
  }
});
