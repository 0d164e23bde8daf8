import assert from "node:assert/strict";
import { ownerGate } from "../_support/people.ts";
import { isDeepStrictEqual } from "node:util";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { seal as sealBytes } from "../../src/crypto/sealed_box.ts";
import {
  RecordEventAnnouncer,
  type StoredRecordEvent,
} from "../../src/store/ports/record_events.ts";
import { EditTokens } from "../../src/auth/index.ts";
import { createUser } from "../../src/relay/identity.ts";
import { FormDirectory } from "../../src/relay/manifests.ts";
import { listQueue } from "../../src/relay/queue.ts";
import { Intake, type IntakeReceipt } from "../../src/relay/submissions.ts";
import {
  buildEnvelope,
  buildPayload,
  type Manifest,
  seal,
  type SubmissionPayload,
} from "../../src/sdk/mod.ts";
import { NotFound } from "../../src/errors/index.ts";
import { keys } from "../../src/store/kv/keys.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { relayKvPorts } from "../../src/store/kv/relay_ports.ts";
import type { RelayPorts } from "../../src/store/ports/bundle.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { KvRecordEventOutbox } from "../../src/store/kv/record_events.ts";
import { LocalRelayLink, Vault, VaultKeys } from "../../src/vault/index.ts";
import type { VaultRecord } from "../../src/store/ports/records.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "message", label: "Message", kind: "richText" },
  { id: "rating", label: "Rating", kind: "number" },
];

/** A record's values as ingest stores them: strict shapes, absent optional fields as null. */
function stored(values: Record<string, unknown>): Record<string, unknown> {
  return { name: null, message: null, rating: null, ...values };
}

/**
 * The in-process relay link, recording its pulls and its separate acks; `hold` delays the
 * next ack. With `separateAcks` it acks after each page's commits, as over HTTP, instead of
 * within them.
 */
class WatchedLink extends LocalRelayLink {
  pulls: number[] = [];
  acks: number[][] = [];
  claims: string[][] = [];
  hold: Promise<void> | null = null;

  constructor(relay: RelayPorts, forms: FormDirectory, separateAcks: boolean) {
    super(relay, forms, "http://127.0.0.1:8080", null);
    if (separateAcks) Object.assign(this, { ackPart: null });
  }

  override async pull(fp: string, after: number, limit: number) {
    this.pulls.push(after);
    return await super.pull(fp, after, limit);
  }

  override async claim(relayUserId: string, hashes: string[], claimant: string) {
    this.claims.push(hashes);
    return await super.claim(relayUserId, hashes, claimant);
  }

  override async ack(fp: string, acks: number[]) {
    this.acks.push(acks);
    const hold = this.hold;
    this.hold = null;
    if (hold) await hold;
    await super.ack(fp, acks);
  }
}

/**
 * Database-key lookups that take longer for items started earlier (`delay(k)` for the k-th
 * lookup): left alone, later envelopes would overtake earlier ones.
 */
class SlowKeys extends VaultKeys {
  delay: ((call: number) => number) | null = null;
  #calls = 0;

  override async databaseKey(fp: string) {
    const ms = this.delay?.(this.#calls++) ?? 0;
    if (ms > 0) await new Promise((r) => setTimeout(r, ms));
    return await super.databaseKey(fp);
  }
}

/** Counts the workers started (and the messages sent to them) until `restore()`. */
function trackWorkers() {
  const Original = globalThis.Worker;
  const started: { posted: number; terminated: boolean }[] = [];
  class TrackedWorker extends Original {
    #info = { posted: 0, terminated: false };
    constructor(specifier: string | URL, options?: WorkerOptions) {
      super(specifier, options);
      started.push(this.#info);
    }
    override postMessage(
      message: unknown,
      options?: Transferable[] | StructuredSerializeOptions,
    ): void {
      this.#info.posted++;
      super.postMessage(message, options as StructuredSerializeOptions);
    }
    override terminate() {
      this.#info.terminated = true;
      super.terminate();
    }
  }
  globalThis.Worker = TrackedWorker;
  return { started, restore: () => void (globalThis.Worker = Original) };
}

/** Relay and vault in one process over one store, as bench/ingest.ts sets them up. */
async function setup(batchSize: number, { separateAcks = false } = {}) {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-ingest-test-" });
  const kv = await openStore(dir);
  const relay = await relayKvPorts(kv, dir);
  const close = async () => {
    await relay.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  try {
    const directory = new FormDirectory(relay);
    const intake = new Intake(
      relay.envelopes,
      directory,
      new EditTokens(new Uint8Array(32)),
      { maxCiphertextBytes: 1024 * 1024, editWindowMs: 3600_000 },
    );
    const link = new WatchedLink(relay, directory, separateAcks);
    const logs: string[] = [];
    const keyStore = new SlowKeys(dir, null);
    const announcer = new RecordEventAnnouncer();
    const vault = new Vault(vaultKvPorts(kv, announcer), keyStore, link, {
      batchSize,
      pollIntervalMs: 60_000,
      log: (message) => logs.push(message),
    });
    const { user } = await createUser(relay.identity, "owner");
    const gate = await ownerGate(vault, user.id);
    const db = await vault.createDatabase(gate.principal, "main");
    const form = await vault.createForm(gate, {
      databaseId: db.id,
      title: "Contact",
      fields: FIELDS,
    });
    const { manifest } = await vault.publish(gate, form.formId);
    const formId = form.formId;

    /** Seals `values` (against `formVersion`, default the manifest's) and submits them. */
    const submit = async (values: Record<string, unknown>, formVersion?: number) => {
      const payload = buildPayload(
        { ...manifest, schemaVersion: formVersion ?? manifest.schemaVersion },
        values,
      );
      const ciphertext = await seal(payload, manifest.recipient.publicKey);
      return await intake.submit(buildEnvelope(manifest, ciphertext));
    };
    /** Amends a submission with its edit token: the next version joins the queue. */
    const amend = async (receipt: IntakeReceipt, values: Record<string, unknown>) => {
      const payload = buildPayload(manifest, values, { mode: "Update" });
      const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey), {
        submissionId: receipt.submissionId,
      });
      return await intake.amend(receipt.submissionId, receipt.editToken, envelope);
    };
    /** Submits `payload` as it is, sealed (no check of its values on the way). */
    const submitPayload = async (payload: SubmissionPayload) =>
      await intake.submit(
        buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey)),
      );
    /** Submits a sealed box of arbitrary bytes (it passes intake; only the vault can tell). */
    const submitRaw = async (sealed: Uint8Array) =>
      await intake.submit(buildEnvelope(manifest, sealed.toBase64()));
    /** The live records of the form (through the records port). */
    const heads = async () => (await vault.store.records.list(formId, undefined, 1000)).items;
    const quarantine = () => vault.store.quarantine.list();
    /** A live record, or null. */
    const record = (id: string) => vault.store.records.get(formId, id);
    const queued = async () => (await listQueue(relay.envelopes, db.fingerprint, 0, 1000)).items;
    return {
      kv,
      announcer,
      link,
      keyStore,
      vault,
      logs,
      user,
      gate,
      db,
      formId,
      manifest: manifest as Manifest,
      submit,
      submitPayload,
      amend,
      submitRaw,
      heads,
      quarantine,
      record,
      queued,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

async function until<T>(probe: () => Promise<T | null>, what: string): Promise<T> {
  const end = Date.now() + 10_000;
  while (Date.now() < end) {
    const got = await probe();
    if (got !== null) return got;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bytes of a standard base64 string. */

/** The record events waiting in the outbox (no webhook engine consumes them here). */
async function outbox(kv: Deno.Kv): Promise<StoredRecordEvent[]> {
  return (await new KvRecordEventOutbox(kv).scan({ skip: () => false, limit: 1000 })).events;
}

Deno.test("ingest: a pipelined drain (two pages in flight) applies every submission's newest version", async () => {
  // Acks after the commits, as over HTTP, so that one can be held.
  const t = await setup(3, { separateAcks: true });
  const workers = trackWorkers();
  const release = Promise.withResolvers<void>();
  let drained: Promise<unknown> | null = null;
  try {
    const receipts: IntakeReceipt[] = [];
    for (let i = 0; i < 10; i++) receipts.push(await t.submit({ name: `s${i} v1`, rating: i }));
    // Amendments after the originals: a submission's versions land in different pages, two
    // of them in flight at once (pages counted from 1: s1 in 1, 4, 5; s4 in 2, 4, 6; s9 in
    // 4, 5, 6).
    const plan: [number, number][] = [[1, 2], [4, 2], [1, 3], [7, 2], [9, 2], [9, 3], [4, 3]];
    for (const [i, v] of plan) {
      const receipt = await t.amend(receipts[i], {
        name: `s${i} v${v}`,
        message: `amended to v${v}`,
        rating: 10 * i + v,
      });
      assert.equal(receipt.version, v);
    }
    const queue = await t.queued();
    assert.equal(queue.length, 17);
    const pagesOf = (i: number) =>
      queue.flatMap((item, k) =>
        item.submissionId === receipts[i].submissionId ? [Math.floor(k / 3)] : []
      );
    assert.deepEqual(pagesOf(1), [0, 3, 4]);
    assert.deepEqual(pagesOf(4), [1, 3, 5]);
    assert.deepEqual(pagesOf(9), [3, 4, 5]);

    // The first ack is held: pages 1 and 2 are processed meanwhile (two in flight) and page
    // 3 is read ahead, but not processed until page 1 is done.
    t.link.hold = release.promise;
    drained = t.vault.ingest.drain();
    await until(async () => (await t.heads()).length === 6 ? true : null, "two pages of records");
    await delay(150);
    assert.equal((await t.heads()).length, 6, "a third page waits for the first one's ack");
    assert.equal(t.link.pulls.length, 3, "pages 1 and 2 read, page 3 read ahead");
    // One ack at a time: the other page's waits behind it. (Which page acks first is the one
    // that settled first, not necessarily page 1.)
    assert.equal(t.link.acks.length, 1, "one ack at a time");
    const pageAcks = (page: number) => queue.slice(3 * page, 3 * page + 3).map((q) => q.seq);
    assert.ok(
      [pageAcks(0), pageAcks(1)].some((acks) => isDeepStrictEqual(acks, t.link.acks[0])),
      `the held ack is page 1's or page 2's: ${JSON.stringify(t.link.acks[0])}`,
    );
    release.resolve();
    const result = await drained;
    assert.deepEqual(result, { records: 17, quarantined: 0, duplicates: 0 });

    // Pages of 3 read one after the other from the last seq seen, then one empty read.
    assert.deepEqual(t.link.pulls, [0, 2, 5, 8, 11, 14, 16].map((k) => k === 0 ? 0 : queue[k].seq));
    const acked = t.link.acks.flat().sort((a, b) => a - b);
    assert.deepEqual(acked, queue.map((q) => q.seq));

    // Every record holds its newest version's values.
    const newest = new Map<number, number>(receipts.map((_, i) => [i, 1]));
    for (const [i, v] of plan) newest.set(i, Math.max(newest.get(i)!, v));
    const heads = await t.heads();
    assert.equal(heads.length, 10);
    for (const [i, receipt] of receipts.entries()) {
      const v = newest.get(i)!;
      const record = await t.vault.record(t.formId, receipt.submissionId);
      assert.deepEqual(
        record.values,
        stored(
          v === 1
            ? { name: `s${i} v1`, rating: i }
            : { name: `s${i} v${v}`, message: `amended to v${v}`, rating: 10 * i + v },
        ),
        `submission s${i}`,
      );
      assert.equal(record._submissionId, receipt.submissionId);
      const versions = await t.vault.store.records.versions(t.formId, receipt.submissionId, 10);
      assert.equal(versions.at(-1)!.submissionVersion, v, `s${i} applied version`);
    }

    // The relay's queue is empty.
    assert.deepEqual(await t.queued(), []);
    assert.deepEqual(await t.link.pull(t.db.fingerprint, 0, 100), []);
    assert.deepEqual(await t.quarantine(), []);
    assert.deepEqual(workers.started, [], "pages this small are opened in-thread");
    assert.deepEqual(t.logs, []);
  } finally {
    workers.restore();
    release.resolve();
    await drained?.catch(() => {});
    await t.close();
  }
});

Deno.test("ingest (role all): each envelope's ack commits with its record, quarantine row or duplicate", async () => {
  const t = await setup(3);
  try {
    const small = await t.submit({ name: "small", rating: 1 });
    // Over 60 KiB of ciphertext: one value in the segment files like any other.
    const large = await t.submit({ name: "large", message: "x".repeat(70_000) });
    await t.submit({ name: "stale schema" }, 7);
    const queue = await t.queued();
    assert.equal(queue.length, 3);
    const first = await t.kv.get<Uint8Array>(keys.queue(t.db.fingerprint, queue[0].seq));

    assert.deepEqual(await t.vault.ingest.drain(), { records: 2, quarantined: 1, duplicates: 0 });
    assert.deepEqual(t.link.acks, [], "no separate ack");
    assert.deepEqual(await t.queued(), []);
    assert.equal((await t.quarantine()).length, 1);
    assert.deepEqual(
      (await t.heads()).map((h) => h._recordId).sort(),
      [small.submissionId, large.submissionId].sort(),
    );

    // An envelope seen again (saved, then delivered again) is acked as a duplicate.
    await t.kv.set(first.key, first.value!);
    assert.equal((await t.queued()).length, 1);
    assert.deepEqual(await t.vault.ingest.drain(), { records: 0, quarantined: 0, duplicates: 1 });
    assert.deepEqual(await t.queued(), []);
    assert.deepEqual(t.link.acks, []);
    assert.deepEqual(t.logs, []);
  } finally {
    await t.close();
  }
});

Deno.test("ingest: a submission's versions are applied in queue order, even when a later one is faster", async () => {
  const t = await setup(3);
  const announced: StoredRecordEvent[] = [];
  const unsubscribe = t.announcer.listen((events) => announced.push(...events));
  try {
    // Pages: [a1 b1 c1] [a2 b2 c2] [a3 b3 c3]; two pages are in flight at once.
    const receipts = [await t.submit({ name: "a1" }), await t.submit({ name: "b1" })];
    receipts.push(await t.submit({ name: "c1" }));
    for (const v of [2, 3]) {
      for (const [i, r] of receipts.entries()) await t.amend(r, { name: `${"abc"[i]}${v}` });
    }
    // Earlier items wait longer for their key: unordered, version 2 would land before 1.
    t.keyStore.delay = (call) => Math.max(0, 9 - call) * 15;
    assert.deepEqual(await t.vault.ingest.drain(), { records: 9, quarantined: 0, duplicates: 0 });
    for (const [i, r] of receipts.entries()) {
      const name = "abc"[i];
      const record = await t.vault.record(t.formId, r.submissionId);
      assert.deepEqual(record.values, stored({ name: `${name}3` }));
      const events = announced.filter((s) => s.event.recordId === r.submissionId);
      assert.deepEqual(
        events.map((s) => [s.event.reason, s.event.values.name]),
        [["insert", `${name}1`], ["update", `${name}2`], ["update", `${name}3`]],
      );
    }
    assert.deepEqual(await t.queued(), []);
    assert.deepEqual(t.logs, []);
  } finally {
    unsubscribe();
    await t.close();
  }
});

Deno.test("ingest: an envelope ingested again is a duplicate, with one record and one event", async () => {
  // Acks after the commit, as over HTTP: a save not yet acked is met again.
  const t = await setup(3, { separateAcks: true });
  const announced: StoredRecordEvent[] = [];
  const unsubscribe = t.announcer.listen((events) => announced.push(...events));
  try {
    const a = await t.submit({ name: "Ada" });
    const b = await t.submit({ name: "Grace" });
    const [itemA, itemB] = await t.link.pull(t.db.fingerprint, 0, 10);
    assert.equal(itemA.submissionId, a.submissionId);
    assert.equal(itemB.submissionId, b.submissionId);

    assert.equal(await t.vault.ingest.ingestItem(t.db, itemA), "record");
    const first = (await t.record(a.submissionId))!;
    assert.equal(await t.vault.ingest.ingestItem(t.db, itemA), "duplicate");
    // The same envelope twice at once: one becomes the record, the other a duplicate.
    const both = await Promise.all([
      t.vault.ingest.ingestItem(t.db, itemB),
      t.vault.ingest.ingestItem(t.db, itemB),
    ]);
    assert.deepEqual(both.sort(), ["duplicate", "record"]);

    // Nothing was acked yet, so a drain meets both again: duplicates, acked this time.
    assert.deepEqual(await t.vault.ingest.drain(), { records: 0, quarantined: 0, duplicates: 2 });
    assert.deepEqual(await t.queued(), []);

    const heads = await t.heads();
    assert.equal(heads.length, 2);
    assert.deepEqual(await t.record(a.submissionId), first, "a duplicate does not rewrite");
    assert.equal((await t.vault.store.records.versions(t.formId, a.submissionId, 10)).length, 1);
    assert.deepEqual(
      announced.map((s) => [s.event.recordId, s.event.reason]).sort(),
      [
        [a.submissionId, "insert"],
        [b.submissionId, "insert"],
      ].sort(),
    );
    assert.equal((await outbox(t.kv)).length, 2, "one outbox row per record");
    assert.deepEqual(t.logs, []);
  } finally {
    unsubscribe();
    await t.close();
  }
});

Deno.test("ingest: a deleted record is not resurrected; an amendment of it is quarantined", async () => {
  const t = await setup(3);
  try {
    // Large values, so the deletion has parts to remove too.
    const receipt = await t.submit({ name: "Ada", message: "a".repeat(40_000), rating: 5 });
    const [v1] = await t.link.pull(t.db.fingerprint, 0, 10);
    assert.deepEqual(await t.vault.ingest.drain(), { records: 1, quarantined: 0, duplicates: 0 });
    const id = receipt.submissionId;
    await t.vault.deleteRecord(t.gate, t.formId, id);
    const assertGone = async () => {
      await assert.rejects(t.vault.record(t.formId, id), (err) => {
        assert.ok(err instanceof NotFound);
        return true;
      });
      assert.deepEqual(await t.heads(), []);
      assert.deepEqual(await t.vault.store.records.versions(t.formId, id, 10), []);
    };
    await assertGone();

    // The original delivered again (a crash before its ack): recognised, not saved again.
    assert.equal(await t.vault.ingest.ingestItem(t.db, v1), "duplicate");
    await assertGone();
    assert.deepEqual(await t.quarantine(), []);

    // An amendment (a newer version) of the deleted record waits in quarantine.
    await t.amend(receipt, { name: "Ada, amended" });
    assert.deepEqual(await t.vault.ingest.drain(), { records: 0, quarantined: 1, duplicates: 0 });
    await assertGone();
    const [row] = await t.quarantine();
    assert.equal(row.id, `${id}.2`);
    assert.equal(row.code, "record_deleted");
    assert.equal(row.submissionId, id);
    assert.equal(row.version, 2);
    assert.equal(row.formVersion, 1);
    assert.deepEqual(await t.queued(), [], "a quarantined envelope is acked");

    // Retrying does not bring it back either, and the row stays.
    const retried = await t.vault.retryQuarantine(t.gate, row.id);
    assert.equal(retried.length, 1);
    assert.equal(retried[0].outcome, "quarantined");
    assert.equal(retried[0].code, "record_deleted");
    await assertGone();
    assert.equal((await t.quarantine()).length, 1);
    assert.deepEqual(t.logs, []);
  } finally {
    await t.close();
  }
});

Deno.test("ingest: an unknown form version is quarantined, then becomes a record once archived", async () => {
  const t = await setup(3);
  try {
    const receipt = await t.submit({ name: "Grace", rating: 4 }, 2);
    assert.deepEqual(await t.vault.ingest.drain(), { records: 0, quarantined: 1, duplicates: 0 });
    assert.deepEqual(await t.queued(), [], "the quarantined envelope is acked");
    const [row] = await t.quarantine();
    assert.equal(row.id, `${receipt.submissionId}.1`);
    assert.equal(row.code, "unknown_form_version");
    assert.equal(row.formVersion, 2);
    assert.match(row.reason, /no schema version 2/);
    assert.ok((await t.vault.store.quarantine.ciphertext(row.id))!.length > 48, "its box is kept");

    // Before the fix a retry leaves it where it is.
    const early = await t.vault.retryQuarantine(t.gate, row.id);
    assert.equal(early[0].outcome, "quarantined");
    assert.equal(early[0].code, "unknown_form_version");
    assert.deepEqual(await t.heads(), []);

    // The owner archives version 2 (one more optional field); the retry makes the record.
    const v2 = await t.vault.forms.update(t.gate, t.formId, {
      fields: [...FIELDS, { id: "city", label: "City", kind: "text" }],
    });
    assert.equal(v2.schemaVersion, 2);
    assert.deepEqual(await t.vault.retryQuarantine(t.gate), [{ id: row.id, outcome: "record" }]);
    const heads = await t.heads();
    assert.equal(heads.length, 1);
    const record = await t.vault.record(t.formId, receipt.submissionId);
    assert.equal(record._schemaVersion, 2);
    assert.deepEqual(record.values, stored({ name: "Grace", rating: 4, city: null }));
    assert.deepEqual(await t.quarantine(), []);
    assert.equal(await t.vault.store.quarantine.ciphertext(row.id), null, "its box went with it");
    assert.deepEqual(t.logs, []);
  } finally {
    await t.close();
  }
});

Deno.test("ingest: values of every size, around the 16 KiB inline limit and above, read back the same", async () => {
  const t = await setup(3);
  try {
    const overhead = JSON.stringify(stored({ name: "b", message: "" })).length;
    const atLimit = "x".repeat(16 * 1024 - overhead);
    const values = {
      small: { name: "small", message: "hi", rating: 1 },
      atLimit: { name: "b", message: atLimit },
      overLimit: { name: "b", message: atLimit + "y" },
      large: { name: "large", message: "<p>" + "lorem ipsum ".repeat(3400) + "</p>" },
    };
    assert.equal(JSON.stringify(stored(values.atLimit)).length, 16 * 1024);
    const receipts: Record<string, IntakeReceipt> = {};
    for (const [name, v] of Object.entries(values)) receipts[name] = await t.submit(v);
    assert.deepEqual(await t.vault.ingest.drain(), { records: 4, quarantined: 0, duplicates: 0 });
    assert.ok(JSON.stringify(values.large).length > 40_000);

    // Read back through the records API: identical, inline or not.
    const byId = async () => {
      const page = await t.vault.store.records.list(t.formId, undefined, 100);
      assert.equal(page.nextCursor, null);
      return new Map(page.items.map((r: VaultRecord) => [r._recordId, r]));
    };
    let listed = await byId();
    assert.equal(listed.size, 4);
    for (const [name, v] of Object.entries(values)) {
      const id = receipts[name].submissionId;
      assert.deepEqual((await t.vault.record(t.formId, id)).values, stored(v), `get ${name}`);
      assert.deepEqual(listed.get(id)?.values, stored(v), `list ${name}`);
    }

    // Amendments move values across the inline limit, both ways.
    const shrunk = { name: "large, now small", message: "short" };
    const grown = { name: "small, now large", message: "z".repeat(40_000) };
    await t.amend(receipts.large, shrunk);
    await t.amend(receipts.small, grown);
    assert.deepEqual(await t.vault.ingest.drain(), { records: 2, quarantined: 0, duplicates: 0 });
    listed = await byId();
    assert.deepEqual(listed.get(receipts.large.submissionId)?.values, stored(shrunk));
    assert.deepEqual(listed.get(receipts.small.submissionId)?.values, stored(grown));
    assert.deepEqual(
      (await t.vault.record(t.formId, receipts.small.submissionId)).values,
      stored(grown),
    );
    assert.deepEqual(t.logs, []);
  } finally {
    await t.close();
  }
});

Deno.test("ingest: each saved record announces its event in-process, with its outbox row", async () => {
  const t = await setup(3);
  const announcements: StoredRecordEvent[][] = [];
  const unsubscribe = t.announcer.listen((events) => announcements.push(events));
  try {
    const a = await t.submit({ name: "Ada", rating: 1 });
    const b = await t.submit({ name: "Grace", rating: 2 });
    const c = await t.submit({ name: "Lin", message: "<b>hi</b>" });
    await t.amend(b, { name: "Grace H.", rating: 3 });
    const queue = await t.link.pull(t.db.fingerprint, 0, 10);
    assert.deepEqual(await t.vault.ingest.drain(), { records: 4, quarantined: 0, duplicates: 0 });

    assert.equal(announcements.length, 4, "one announcement per saved version");
    for (const list of announcements) assert.equal(list.length, 1);
    const events = announcements.map(([stored]) => stored);
    const of = (id: string) => events.filter((s) => s.event.recordId === id).map((s) => s.event);
    assert.deepEqual(of(a.submissionId).map((e) => e.reason), ["insert"]);
    assert.deepEqual(of(b.submissionId).map((e) => e.reason), ["insert", "update"]);
    assert.deepEqual(of(c.submissionId).map((e) => e.reason), ["insert"]);
    assert.deepEqual(of(b.submissionId)[0].values, stored({ name: "Grace", rating: 2 }));

    for (const receipt of [a, b, c]) {
      const record = await t.vault.record(t.formId, receipt.submissionId);
      const last = of(receipt.submissionId).at(-1)!;
      assert.deepEqual(last.values, record.values);
      assert.equal(last.formId, t.formId);
      assert.equal(last.schemaVersion, 1);
      assert.equal(last.savedAt, record._savedAt);
    }
    // Each announced event was committed to the outbox, as announced.
    const byId = (list: StoredRecordEvent[]) =>
      [...list].sort((a, b) => a.event.eventId < b.event.eventId ? -1 : 1);
    assert.deepEqual(byId(await outbox(t.kv)), byId(events));
    assert.equal(new Set(events.map((s) => s.event.eventId)).size, 4);

    // A duplicate announces nothing.
    assert.equal(await t.vault.ingest.ingestItem(t.db, queue[0]), "duplicate");
    assert.equal(announcements.length, 4);
    assert.deepEqual(t.logs, []);
  } finally {
    unsubscribe();
    await t.close();
  }
});

Deno.test("ingest: a page of 32 or more envelopes is opened on a worker thread, closed after", async () => {
  const t = await setup(64);
  const workers = trackWorkers();
  try {
    const receipts: IntakeReceipt[] = [];
    for (let i = 0; i < 40; i++) {
      receipts.push(await t.submit({ name: `sender ${i}`, message: "m".repeat(500), rating: i }));
    }
    // Two that pass intake but not the vault: sealed to another key, and not a payload.
    const stranger = await t.submitRaw(
      await sealBytes(new TextEncoder().encode("{}"), generateKeyPair().publicKey),
    );
    const garbage = await t.submitRaw(
      await sealBytes(
        new TextEncoder().encode("not json"),
        Uint8Array.fromBase64(t.manifest.recipient.publicKey),
      ),
    );
    const queue = await t.queued();
    assert.equal(queue.length, 42);

    assert.deepEqual(await t.vault.ingest.drain(), { records: 40, quarantined: 2, duplicates: 0 });
    assert.deepEqual(t.link.pulls, [0, queue[41].seq], "one page of 42, then an empty read");
    for (const [i, receipt] of receipts.entries()) {
      const record = await t.vault.record(t.formId, receipt.submissionId);
      assert.deepEqual(
        record.values,
        stored({ name: `sender ${i}`, message: "m".repeat(500), rating: i }),
      );
    }
    const codes = new Map((await t.quarantine()).map((row) => [row.submissionId, row.code]));
    assert.deepEqual(codes.get(stranger.submissionId), "decryption_failed");
    assert.deepEqual(codes.get(garbage.submissionId), "invalid_payload");
    assert.equal(codes.size, 2);
    assert.deepEqual(await t.queued(), []);
    assert.deepEqual(t.logs, []);
    // One worker opened every box of the page, sent to it as one message, and the drain
    // terminated it before returning (Deno's sanitizers do not notice a live worker, so it is
    // counted here).
    assert.deepEqual(workers.started, [{ posted: 1, terminated: true }]);
  } finally {
    workers.restore();
    await t.close();
  }
});

Deno.test("ingest: a readable envelope claims its owned files, also when it is quarantined", async () => {
  const t = await setup(3);
  try {
    const file = (c: string) => ({
      url: `https://relay.example/put/u1/${c}`,
      hash: c.repeat(64),
      owned: true,
      mime: "image/png",
      sizeBytes: 10,
      fileName: "p.png",
    });
    // A schema version the vault never archived: its values are not checked, but the files
    // they name are kept for the retry after the owner archives the version.
    const stale = buildPayload({ ...t.manifest, schemaVersion: 7 }, { name: "a" });
    await t.submitPayload({ ...stale, values: { ...stale.values, photo: file("c") } });
    // Values that fail validation: quarantined, files kept too.
    const bad = buildPayload(t.manifest, { name: "b" });
    await t.submitPayload({ ...bad, values: { ...bad.values, rating: "x", photo: file("d") } });
    // Unreadable: nothing to claim.
    await t.submitRaw(new Uint8Array(120));
    assert.deepEqual(await t.vault.ingest.drain(), { records: 0, quarantined: 3, duplicates: 0 });
    assert.deepEqual(
      (await t.quarantine()).map((q) => q.code).sort(),
      ["decryption_failed", "invalid_values", "unknown_form_version"],
    );
    assert.deepEqual(t.link.claims.flat().sort(), ["c".repeat(64), "d".repeat(64)]);
  } finally {
    await t.close();
  }
});

Deno.test("ingest: a value check that throws quarantines the envelope instead of stopping the queue", async () => {
  const t = await setup(10);
  try {
    // An archived version whose pattern no longer compiles (written straight to the store, as
    // an older release might have left it): checking a value against it throws.
    await t.vault.store.forms.update(t.formId, (row) => ({
      row: { ...row, schemaVersion: 2 },
      version: {
        formId: t.formId,
        schemaVersion: 2,
        title: "Contact",
        fields: [{ id: "name", label: "Name", kind: "text", pattern: "(" }],
        createdAt: new Date().toISOString(),
      },
    }));
    await t.submit({ name: "a" }, 2);
    await t.submit({ name: "b" });
    assert.deepEqual(await t.vault.ingest.drain(), { records: 1, quarantined: 1, duplicates: 0 });
    const [row] = await t.quarantine();
    assert.equal(row.code, "invalid_values");
    assert.match(row.reason, /^values: could not be checked: /);
  } finally {
    await t.close();
  }
});
