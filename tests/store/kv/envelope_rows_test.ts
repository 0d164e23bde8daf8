import assert from "node:assert/strict";
import fc from "fast-check";
import {
  decodeHead,
  decodeQueued,
  encodeHead,
  encodeQueued,
  type StoredQueueRow,
} from "../../../src/store/kv/envelope_rows.ts";
import type { SubmissionHead } from "../../../src/store/ports/envelopes.ts";

const hex = (n: number, seed: number) =>
  Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff).toHex();

const head: SubmissionHead = {
  id: hex(16, 1),
  formId: "contact",
  fingerprint: hex(32, 2),
  createdAt: "2026-11-24T02:10:50.123Z",
  version: 1,
  digest: hex(32, 3),
  latestDigest: hex(32, 3),
};

const queued: StoredQueueRow = {
  submissionId: hex(16, 1),
  version: 1,
  formId: "contact",
  recipientPubkey: null,
  submitterId: null,
  receivedAt: "2026-11-24T02:10:50.456Z",
  ref: { s: 12, o: 64 * 1024 * 1024 - 1024, n: 1024 },
};

Deno.test("envelope rows: a head and a queue row round-trip, in far fewer bytes than their fields", () => {
  const h = encodeHead(head);
  assert.deepEqual(decodeHead(head.id, h), head);
  // version, form id, fingerprint and digest as bytes, the time as a number: no id, no names.
  assert.ok(h.length <= 84, `head of ${h.length} B`);
  const q = encodeQueued(queued);
  assert.deepEqual(decodeQueued(q), queued);
  assert.ok(q.length <= 44, `queue row of ${q.length} B`);
});

Deno.test("envelope rows: every string comes back exactly, hex or not, and every time", () => {
  const odd: SubmissionHead = {
    id: "any id",
    formId: "Formulaire é ✓",
    fingerprint: "ABCDEF", // upper-case hex is kept as text
    createdAt: "2026-11-24T02:10:50Z", // not toISOString()'s form
    version: 2 ** 40,
    digest: "abc", // odd length
    latestDigest: "",
  };
  assert.deepEqual(decodeHead(odd.id, encodeHead(odd)), odd);
  const amended = { ...head, version: 3, latestDigest: hex(32, 9) };
  assert.deepEqual(decodeHead(head.id, encodeHead(amended)), amended);
  const explicit: StoredQueueRow = {
    ...queued,
    submissionId: "not-hex",
    recipientPubkey: "AAAA/+==",
    submitterId: "sender ✓ ".repeat(100), // longer than the writer's first buffer
    receivedAt: "1969-12-31T23:59:59.999Z", // before the epoch: kept as text
    ref: { s: 2 ** 33, o: 0, n: 0 },
  };
  assert.deepEqual(decodeQueued(encodeQueued(explicit)), explicit);
});

Deno.test("envelope rows: an unknown format or a cut value is refused, not misread", () => {
  const q = encodeQueued(queued);
  assert.throws(
    () => decodeQueued(Uint8Array.of(9, ...q.subarray(1))),
    /Unknown queue row format 9/,
  );
  assert.throws(() => decodeQueued(q.subarray(0, q.length - 1)), /ends early/);
  assert.throws(() => decodeHead("x", encodeHead(head).subarray(0, 10)), /ends early/);
  assert.throws(() => encodeHead({ ...head, version: -1 }), RangeError);
});

Deno.test("envelope rows: rows encoded one after another share no bytes, whatever their sizes", () => {
  const big = { ...queued, submitterId: "✓".repeat(400) }; // grows the shared buffer
  const first = encodeQueued(queued);
  const copy = first.slice();
  const second = encodeQueued(big);
  encodeHead(head);
  assert.deepEqual(first, copy);
  assert.deepEqual(decodeQueued(second), big);
  assert.deepEqual(decodeQueued(first), queued);
  // Around the short-text path's bound: 21 characters of 3 bytes (63 bytes), then 22.
  for (const formId of ["✓".repeat(21), "✓".repeat(22), "a".repeat(21), "a".repeat(64)]) {
    assert.deepEqual(decodeHead(head.id, encodeHead({ ...head, formId })), { ...head, formId });
  }
});

Deno.test("envelope rows: any strings and times round-trip (property)", () => {
  const iso = fc.integer({ min: -1e13, max: 1e13 }).map((ms) => new Date(ms).toISOString());
  const text = fc.oneof(fc.string({ unit: "grapheme" }), fc.string(), iso);
  fc.assert(
    fc.property(text, text, fc.oneof(iso, text), fc.nat(), (formId, digest, time, version) => {
      const row = { ...head, formId, digest, createdAt: time, version, latestDigest: digest };
      assert.deepEqual(decodeHead(head.id, encodeHead(row)), row);
      // The same time again (the writer remembers the last exact one).
      const again = { ...queued, formId, receivedAt: time };
      assert.deepEqual(decodeQueued(encodeQueued(again)), again);
    }),
    { numRuns: 500 },
  );
});
