/**
 * The standing adversarial suite: for every operation of the OpenAPI document of a running
 * server, generated hostile paths, queries, bodies, content types and tokens (fast-check).
 * Every answer must be below 500, every 4xx must carry the JSON error shape, and the server
 * must stay healthy and still take a good submission.
 *
 * Bounded: about 45 s of requests by default; `deno task fuzz` runs ten minutes,
 * `SEALPOST_FUZZ_SECONDS=N deno test -A tests/http/adversarial_test.ts` any other budget, and
 * `SEALPOST_FUZZ_SEED` replays a reported run.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildEnvelope, buildPayload, type Manifest, seal } from "../../src/sdk/mod.ts";
import {
  checkAnswer,
  type HostileRequest,
  hostileRequest,
  operationsOf,
  type Seeds,
  type ValidBodies,
} from "../_support/adversary.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

const SECONDS = Number(Deno.env.get("SEALPOST_FUZZ_SECONDS") || "45");
if (!(SECONDS > 0)) throw new Error("SEALPOST_FUZZ_SECONDS must be a number of seconds above 0");
const SEED = Deno.env.get("SEALPOST_FUZZ_SEED");

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "age", label: "Age", kind: "number" },
  { id: "photo", label: "Photo", kind: "image" },
];

/** Submits a good envelope; answers its receipt. */
async function goodSubmission(inst: TestInstance, manifest: Manifest) {
  const payload = buildPayload(manifest, { name: "Ada", age: 36 });
  const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey));
  const res = await call(`${inst.url}/submissions`, { method: "POST", json: envelope });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { submissionId: string; editToken: string };
}

/** Real ids of every kind, so that some hostile requests reach the handlers' own checks. */
async function seedsOf(inst: TestInstance) {
  const { token, db, form } = await vaultForm(inst, "Fuzzed", FIELDS);
  const manifest = (await call(`${inst.url}/forms/${form.formId}/manifest`)).body as Manifest;
  const receipt = await goodSubmission(inst, manifest);
  const bytes = new TextEncoder().encode("fuzz");
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
  const slot = await call(`${inst.url}/submissions/upload-slot`, {
    method: "POST",
    json: { recipientUserId: inst.credentials.userId, hash },
  });
  assert.equal(slot.status, 200, JSON.stringify(slot.body));
  assert.equal((await call(slot.body.url, { method: "PUT", body: bytes })).status, 201);
  const record = await call(`${inst.url}/vault/forms/${form.formId}/records`, {
    method: "POST",
    token,
    json: { values: { name: "Grace" } },
  });
  assert.equal(record.status, 201, JSON.stringify(record.body));
  const webhookBody = { url: "http://127.0.0.1:9/hook", events: ["create"] };
  const webhook = await call(`${inst.url}/owner/forms/${form.formId}/webhooks`, {
    method: "POST",
    token,
    json: webhookBody,
  });
  assert.equal(webhook.status, 201, JSON.stringify(webhook.body));
  const envelope = buildEnvelope(
    manifest,
    await seal(buildPayload(manifest, { name: "Bo" }), manifest.recipient.publicKey),
  );
  // Bodies the server accepts: the fuzzer changes one member of one of them at a time.
  const fields = [{ id: "name", label: "Name", kind: "text" }];
  const valid: ValidBodies = {
    "POST /submissions": envelope,
    "PUT /submissions/{submissionId}": { ...envelope, submissionId: receipt.submissionId },
    "PUT /owner/forms/{formId}": manifest,
    "POST /owner/forms/{formId}/close": { message: "Closed" },
    "POST /vault/forms/{formId}/close": { message: "Closed" },
    "POST /admin/users": { name: "n" },
    "POST /owner/databases": { name: "n", publicKey: manifest.recipient.publicKey },
    "POST /owner/databases/verify": { challengeId: "0".repeat(32), challenge: "AAAA" },
    "POST /owner/queues/{fingerprint}/ack": { seqs: [1] },
    "POST /submissions/upload-slot": { recipientUserId: inst.credentials.userId, hash },
    "POST /owner/blobs/claim": { hashes: [hash] },
    "POST /vault/databases": { name: "n" },
    "POST /vault/forms": { databaseId: db.id, title: "t", fields },
    "PUT /vault/forms/{formId}": { fields },
    "POST /vault/forms/{formId}/records": { values: { name: "x", age: 1 } },
    "PATCH /vault/forms/{formId}/records/{recordId}": { values: { age: 2 } },
    "POST /vault/quarantine/retry": { id: `${receipt.submissionId}.1` },
    "POST /owner/forms/{formId}/webhooks": webhookBody,
    "PATCH /owner/webhooks/{webhookId}": { name: "w" },
    "POST /owner/webhooks/{webhookId}/test": { values: { name: "x" } },
  };
  const seeds: Seeds = {
    formId: form.formId,
    databaseId: db.id,
    fingerprint: db.fingerprint,
    userId: inst.credentials.userId,
    recipientUserId: inst.credentials.userId,
    hash,
    submissionId: receipt.submissionId,
    recordId: record.body._recordId,
    id: `${receipt.submissionId}.1`,
    recipientPubkey: manifest.recipient.publicKey,
    webhookId: webhook.body.id,
  };
  // The owner token opens most routes: it comes up most often.
  const tokens = [token, token, token, token, inst.credentials.adminToken, receipt.editToken];
  return { seeds, manifest, tokens, valid };
}

function describe(request: HostileRequest): string {
  const body = request.body instanceof Uint8Array
    ? `<${request.body.length} bytes>`
    : request.body?.slice(0, 200);
  return `${request.method} ${request.path.slice(0, 300)} ${
    JSON.stringify(request.headers)
      .slice(0, 200)
  } ${body ?? ""}`;
}

Deno.test({
  name: "adversarial: hostile requests to every route: no 5xx, JSON errors, still healthy",
  // Each run's requests end with their answers; the server's own timers outlive none.
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const inst = await startInstance();
    try {
      const { seeds, manifest, tokens, valid } = await seedsOf(inst);
      const doc = (await call(`${inst.url}/openapi.json`)).body;
      const operations = operationsOf(doc);
      assert.ok(operations.length >= 30, `only ${operations.length} operations`);
      const hits = new Map<string, number>();
      const statuses = new Map<number, number>();
      const arbitrary = fc.constantFrom(...operations).chain((op) =>
        hostileRequest(op, seeds, tokens, valid).map((request) => ({ op, request }))
      );
      const outcome = await fc.check(
        fc.asyncProperty(arbitrary, async ({ op, request }) => {
          const key = `${op.method} ${op.path}`;
          hits.set(key, (hits.get(key) ?? 0) + 1);
          const response = await fetch(`${inst.url}${request.path}`, {
            method: request.method,
            headers: request.headers,
            body: request.body,
          });
          const text = await response.text();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const problem = checkAnswer(response.status, text);
          if (problem) throw new Error(`${describe(request)}\n  ${problem}`);
          const health = await fetch(`${inst.url}/healthz`);
          await health.body?.cancel();
          if (health.status !== 200) throw new Error(`unhealthy after ${describe(request)}`);
        }),
        {
          numRuns: 1_000_000,
          interruptAfterTimeLimit: SECONDS * 1000,
          markInterruptAsFailure: false,
          endOnFailure: true,
          ...(SEED ? { seed: Number(SEED) } : {}),
        },
      );
      if (outcome.failed) {
        const message = outcome.errorInstance instanceof Error
          ? outcome.errorInstance.message
          : String(outcome.errorInstance);
        // The counterexample can be megabytes: the first lines say enough, the seed replays it.
        throw new Error(
          `SEALPOST_FUZZ_SEED=${outcome.seed} (path ${outcome.counterexamplePath}): ` +
            message.slice(0, 2000),
        );
      }
      const total = [...hits.values()].reduce((a, b) => a + b, 0);
      console.log(
        `adversarial: ${total} requests over ${hits.size} operations; statuses ${
          JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))
        }`,
      );
      // Every operation was tried (the budget covers dozens of requests per operation).
      assert.equal(hits.size, operations.length, "some operations were never tried");
      // Still healthy, and still taking a good submission: the seeded form's, or (when the
      // fuzzer closed or deleted it, which the lifecycle routes allow) a new form's.
      assert.equal((await call(`${inst.url}/healthz`)).status, 200);
      const current = await call(`${inst.url}/forms/${manifest.formId}/manifest`);
      if (current.status === 200) await goodSubmission(inst, manifest);
      else {
        const { form } = await vaultForm(inst, "After the fuzz", FIELDS);
        const fresh = await call(`${inst.url}/forms/${form.formId}/manifest`);
        await goodSubmission(inst, fresh.body as Manifest);
      }
    } finally {
      await inst.close();
    }
  },
});
