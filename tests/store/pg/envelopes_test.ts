/**
 * The PostgreSQL envelope port with several processes on one database: two pools on one
 * schema stand for two relay processes (or two vault workers).
 */
import assert from "node:assert/strict";
import { PgEnvelopes } from "../../../src/store/pg/envelopes.ts";
import type { SubmissionHead } from "../../../src/store/ports/envelopes.ts";
import { freshPg } from "../contract/_pg.ts";

const FP = "fp-shared";

function head(id: string, fingerprint = FP): SubmissionHead {
  return {
    id,
    formId: "contact",
    fingerprint,
    createdAt: "2030-01-01T00:00:00.000Z",
    version: 1,
    digest: "d1",
    latestDigest: "d1",
  };
}

const envelope = () => ({
  formId: "contact",
  recipientPubkey: "pk",
  submitterId: null,
  ciphertext: crypto.getRandomValues(new Uint8Array(200)),
});

/** Two ports on two pools of one fresh schema; closes everything after `body`. */
async function twoProcesses(body: (a: PgEnvelopes, b: PgEnvelopes) => Promise<void>) {
  const pg = await freshPg();
  const a = await PgEnvelopes.open(pg.open());
  const b = await PgEnvelopes.open(pg.open());
  try {
    await body(a, b);
  } finally {
    await a.close();
    await b.close();
    await pg.close();
  }
}

Deno.test("pg envelopes: positions follow commit order across processes (a cursor misses none)", async () => {
  await twoProcesses(async (a, b) => {
    const total = 400;
    let written = 0;
    const writers = [a, b].map(async (port, w) => {
      for (let round = 0; round < total / 2 / 20; round++) {
        await Promise.all(Array.from({ length: 20 }, (_, i) => {
          const id = `w${w}-${round}-${i}`;
          return port.writeVersion(head(id), null, envelope()).then((ok) => {
            assert.ok(ok);
            written++;
          });
        }));
      }
    });
    // A reader that follows its cursor while both write: a position handed out before a
    // lower one commits would be skipped for ever.
    const seen: number[] = [];
    let after = 0;
    const done = Promise.all(writers);
    let finished = false;
    done.then(() => finished = true, () => finished = true);
    for (let polls = 0; polls < 10_000; polls++) {
      const wasFinished = finished;
      const page = await a.listQueue(FP, after, 50);
      seen.push(...page.items.map((i) => i.seq));
      if (page.items.length > 0) after = page.items.at(-1)!.seq;
      if (wasFinished && page.nextCursor === null) break;
    }
    await done;
    assert.equal(written, total);
    assert.equal(seen.length, total, "the cursor saw every envelope once");
    assert.equal(new Set(seen).size, total);
    assert.deepEqual([...seen].sort((x, y) => x - y), seen);
  });
});

Deno.test("pg envelopes: one submission id from two processes at once is written once", async () => {
  await twoProcesses(async (a, b) => {
    const results = await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) => (i % 2 ? a : b).writeVersion(head("s1"), null, envelope()),
      ),
    );
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal((await b.listQueue(FP, 0, 10)).items.length, 1);
    const amends = await Promise.all(
      [a, b].map((port) => port.writeVersion({ ...head("s1"), version: 2 }, 1, envelope())),
    );
    assert.deepEqual(amends.filter(Boolean).length, 1, "one amendment over version 1");
    assert.equal((await a.getSubmission("s1"))?.version, 2);
  });
});

Deno.test("pg envelopes: two workers leasing at once split the queue", async () => {
  await twoProcesses(async (a, b) => {
    await Promise.all(
      Array.from({ length: 60 }, (_, i) => a.writeVersion(head(`s${i}`), null, envelope())),
    );
    const taken: number[][] = [[], []];
    await Promise.all([a, b].map(async (port, w) => {
      const lease = { holder: `worker-${w}`, ms: 60_000 };
      for (let pages = 0; pages < 20; pages++) {
        const page = await port.listQueue(FP, 0, 7, lease);
        const fresh = page.items.filter((i) => !taken[w].includes(i.seq));
        if (fresh.length === 0) break;
        taken[w].push(...fresh.map((i) => i.seq));
        await port.ack(FP, fresh.map((i) => i.seq));
      }
    }));
    const all = [...taken[0], ...taken[1]];
    assert.equal(all.length, 60);
    assert.equal(new Set(all).size, 60, "no envelope went to both workers");
    assert.deepEqual((await b.listQueue(FP, 0, 100)).items, []);
  });
});

Deno.test("pg envelopes: a process hears the NOTIFY of another's commit", async () => {
  await twoProcesses(async (a, b) => {
    const heard = new Promise<string>((resolve) => {
      const stop = a.onQueued((fp) => {
        stop();
        resolve(fp);
      });
    });
    await b.writeVersion(head("s1", "fp-notified"), null, envelope());
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<string>((resolve) => timer = setTimeout(() => resolve(""), 5000));
    assert.equal(await Promise.race([heard, timeout]), "fp-notified");
    clearTimeout(timer);
  });
});

Deno.test("pg envelopes: a batch of large envelopes goes in several statements, all read back whole", async () => {
  await twoProcesses(async (a) => {
    const big = Array.from({ length: 4 }, (_, i) => {
      const bytes = new Uint8Array(9 * 1024 * 1024);
      for (let o = 0; o < bytes.length; o += 65536) {
        bytes.set(crypto.getRandomValues(new Uint8Array(65536)), o);
      }
      bytes[0] = i;
      return bytes;
    });
    const results = await Promise.all(
      big.map((ciphertext, i) =>
        a.writeVersion(head(`big${i}`), null, { ...envelope(), ciphertext })
      ),
    );
    assert.deepEqual(results, [true, true, true, true]);
    let after = 0;
    const read = new Map<string, Uint8Array>();
    for (let pages = 0; pages < 10; pages++) {
      const page = await a.listQueue(FP, after, 10);
      for (const item of page.items) read.set(item.submissionId, item.ciphertext);
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    assert.equal(read.size, 4);
    big.forEach((bytes, i) => assert.deepEqual(read.get(`big${i}`), bytes));
  });
});
