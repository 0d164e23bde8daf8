import assert from "node:assert/strict";
import { SubmissionEnvelopeSchema, SubmissionPayloadSchema } from "../../src/forms/payload.ts";

const KEY = "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=";
const ENVELOPE = {
  submissionId: "0123456789abcdef0123456789abcdef",
  formId: "contact",
  recipientPubkey: KEY,
  submitterId: null,
  ciphertext: "A".repeat(64),
};
const PAYLOAD = {
  values: { email: "a@example.com" },
  submittedAt: "2025-01-31T12:00:00.000Z",
  formVersion: 2,
  formSchema: "",
  mode: "Create",
};

Deno.test("SubmissionEnvelopeSchema accepts the specification's shape", () => {
  assert.deepEqual(SubmissionEnvelopeSchema.parse(ENVELOPE), ENVELOPE);
  const { submitterId: _, ...anonymous } = ENVELOPE;
  assert.deepEqual(SubmissionEnvelopeSchema.parse(anonymous), anonymous);
  assert.equal(
    SubmissionEnvelopeSchema.parse({ ...ENVELOPE, submitterId: "u9" }).submitterId,
    "u9",
  );
});

Deno.test("SubmissionEnvelopeSchema rejects bad members, naming them", () => {
  const cases: [string, unknown][] = [
    ["submissionId", "0123456789ABCDEF0123456789ABCDEF"],
    ["submissionId", "01234567-89ab-cdef-0123-456789abcdef"],
    ["submissionId", "0123"],
    ["formId", ""],
    ["recipientPubkey", "AAAA"],
    ["recipientPubkey", KEY.slice(0, -1)],
    ["submitterId", 5],
    ["ciphertext", "A".repeat(63)],
    ["ciphertext", "AAA=AAAA"],
    ["ciphertext", "AA-_"],
    ["ciphertext", 5],
  ];
  for (const [field, value] of cases) {
    const r = SubmissionEnvelopeSchema.safeParse({ ...ENVELOPE, [field]: value });
    assert.equal(r.success, false, `${field} = ${JSON.stringify(value)}`);
    assert.deepEqual(r.error!.issues[0].path, [field]);
  }
  for (const field of ["submissionId", "formId", "recipientPubkey", "ciphertext"]) {
    const copy: Record<string, unknown> = { ...ENVELOPE };
    delete copy[field];
    assert.equal(SubmissionEnvelopeSchema.safeParse(copy).success, false, field);
  }
});

Deno.test("SubmissionPayloadSchema", () => {
  assert.deepEqual(SubmissionPayloadSchema.parse(PAYLOAD), PAYLOAD);
  assert.equal(SubmissionPayloadSchema.parse({ ...PAYLOAD, mode: "Update" }).mode, "Update");
  assert.equal(
    SubmissionPayloadSchema.parse({ ...PAYLOAD, submittedAt: "2025-01-31T12:00:00Z" }).formVersion,
    2,
  );
  const bad: Record<string, unknown>[] = [
    { mode: "create" },
    { formVersion: 0 },
    { formVersion: 1.5 },
    { submittedAt: "2025-01-31T12:00:00+01:00" },
    { submittedAt: "2025-02-30T12:00:00Z" },
    { submittedAt: "yesterday" },
    { values: [] },
    { formSchema: null },
  ];
  for (const change of bad) {
    assert.equal(
      SubmissionPayloadSchema.safeParse({ ...PAYLOAD, ...change }).success,
      false,
      JSON.stringify(change),
    );
  }
});
