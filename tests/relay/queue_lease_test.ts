/**
 * `GET /owner/queues/{fingerprint}` with `lease`, `holder` and `wait`, over real HTTP (the store is
 * Deno KV here; the PostgreSQL port passes the same contract, tests/store/pg_*).
 */
import assert from "node:assert/strict";
import { envelopeFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { call, startInstance } from "../_support/server.ts";

async function setup() {
  const inst = await startInstance();
  const db = await registerDatabase(inst);
  await publishForm(inst, db, "contact");
  const list = async (query: string) => {
    const res = await call(`${inst.url}/owner/queues/${db.fingerprint}${query}`, {
      token: inst.credentials.ownerToken,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.items as { submissionId: string; seq: number }[]);
  };
  const submit = async () => {
    const envelope = await envelopeFor(db, "contact");
    const res = await call(`${inst.url}/submissions`, { method: "POST", json: envelope });
    assert.equal(res.status, 200);
    return envelope.submissionId;
  };
  return { inst, db, list, submit };
}

Deno.test("GET /owner/queues?lease: leasing reads split the queue; plain reads see everything", async () => {
  const { inst, db, list, submit } = await setup();
  try {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await submit());
    const first = await list("?limit=3&lease=60");
    const second = await list("?limit=3&lease=60");
    assert.deepEqual(first.map((i) => i.submissionId), ids.slice(0, 3));
    assert.deepEqual(second.map((i) => i.submissionId), ids.slice(3));
    assert.deepEqual(await list("?lease=60"), [], "all leased");
    assert.equal((await list("")).length, 5, "a read without lease lists all");
    const ack = await call(`${inst.url}/owner/queues/${db.fingerprint}/ack`, {
      method: "POST",
      token: inst.credentials.ownerToken,
      json: { seqs: first.map((i) => i.seq) },
    });
    assert.equal(ack.body.acked, 3);
    assert.deepEqual((await list("")).map((i) => i.submissionId), ids.slice(3));
  } finally {
    await inst.close();
  }
});

Deno.test("GET /owner/queues?lease&holder: a holder takes its own leases again, others skip them", async () => {
  const { inst, list, submit } = await setup();
  try {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await submit());
    const taken = await list("?limit=2&lease=60&holder=worker-a");
    assert.deepEqual(taken.map((i) => i.submissionId), ids.slice(0, 2));
    // The answer was lost on the way (a cut-off read): worker-a reads again from the start.
    const again = await list("?limit=2&lease=60&holder=worker-a");
    assert.deepEqual(again.map((i) => i.submissionId), ids.slice(0, 2), "its own, at once");
    const other = await list("?lease=60&holder=worker-b");
    assert.deepEqual(other.map((i) => i.submissionId), ids.slice(2), "worker-a's are skipped");
    assert.deepEqual(await list("?lease=60"), [], "an unnamed read is another holder");
  } finally {
    await inst.close();
  }
});

Deno.test("GET /owner/queues?wait: answers as soon as an envelope is queued, else empty at the end", async () => {
  const { inst, list, submit } = await setup();
  try {
    const started = Date.now();
    assert.deepEqual(await list("?wait=1"), []);
    assert.ok(Date.now() - started >= 900, "waited about a second for nothing");
    const waiting = list("?wait=20&lease=60");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const id = await submit();
    const before = Date.now();
    const items = await waiting;
    assert.deepEqual(items.map((i) => i.submissionId), [id]);
    // Well before the wait's end and the 5 s recheck: the commit itself woke the read.
    assert.ok(Date.now() - before < 4500, "woken by the commit");
    assert.deepEqual(await list("?wait=0&lease=60"), [], "leased by the waiting read");
  } finally {
    await inst.close();
  }
});

Deno.test("GET /owner/queues: a bad lease or wait is a 400 in the JSON error shape", async () => {
  const { inst, db } = await setup();
  try {
    for (
      const query of [
        "lease=0",
        "lease=301",
        "lease=abc",
        "lease=1.5",
        "lease=",
        "wait=31",
        "wait=-1",
        "wait=x",
        "holder=",
        "holder=a%20b",
        `holder=${"h".repeat(65)}`,
      ]
    ) {
      const res = await call(`${inst.url}/owner/queues/${db.fingerprint}?${query}`, {
        token: inst.credentials.ownerToken,
      });
      assert.equal(res.status, 400, query);
      assert.equal(typeof res.body.error.code, "string", query);
      assert.match(res.body.error.code, /^[a-z_]+$/, query);
      assert.equal(typeof res.body.error.message, "string", query);
      assert.equal(res.body.error.field, query.split("=")[0], query);
    }
  } finally {
    await inst.close();
  }
});

Deno.test("GET /owner/queues?wait: a client gone mid-wait leases nothing", async () => {
  const { inst, db, list, submit } = await setup();
  try {
    const url = new URL(inst.url);
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
    const path = `/owner/queues/${db.fingerprint}?wait=20&lease=60&holder=gone`;
    await conn.write(new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n` +
        `Authorization: Bearer ${inst.credentials.ownerToken}\r\n\r\n`,
    ));
    await new Promise((resolve) => setTimeout(resolve, 300));
    conn.close(); // the worker was stopped (or killed) during its long poll
    await new Promise((resolve) => setTimeout(resolve, 300));
    const id = await submit();
    // Had the abandoned poll been woken by the commit, it would have leased the envelope
    // for 60 s to a reader that is gone.
    const items = await list("?lease=60&holder=alive");
    assert.deepEqual(items.map((i) => i.submissionId), [id]);
  } finally {
    await inst.close();
  }
});

Deno.test("GET /owner/queues?wait: a shutdown answers a waiting read at once", async () => {
  const { inst, db } = await setup();
  const waiting = call(`${inst.url}/owner/queues/${db.fingerprint}?wait=30`, {
    token: inst.credentials.ownerToken,
  });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  await inst.close();
  const res = await waiting;
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.items, []);
  assert.equal(res.headers.get("connection"), "close");
  assert.ok(Date.now() - started < 10_000, "the shutdown did not wait out the 30 s");
});
