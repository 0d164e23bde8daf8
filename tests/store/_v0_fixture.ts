/**
 * A store as Sealpost wrote it before schema versions (version 0), for the migration tests:
 * no version key, a webhook delivery with its body inline in the row and a ref that is a bare
 * webhook id, a delivery whose body is in parts (also with a bare ref), a configuration without
 * `concurrency`, and a submission head with the old `pending` list. Each delivery carries its
 * attempt log inside its row, as versions 0 to 2 did.
 */
import { webhookKeys } from "../../src/store/kv/keys.ts";

/** Ids and bytes of the fixture, to check the migrated store against. */
export const V0 = {
  formId: "f0000000000000001",
  webhookId: "0123456789abcdef01234567",
  inlineId: "d-inline",
  partsId: "d-parts",
  submissionId: "0123456789abcdef0123456789abcdef",
  inlineBody: new TextEncoder().encode('{"name":"Ada"}'),
  partBodies: [new TextEncoder().encode('{"big":"'), new TextEncoder().encode('yes"}')],
};

const NOW = "2026-11-01T00:00:00.000Z";

/** The attempt log every fixture delivery carries inside its row (versions 0 to 2). */
export const ATTEMPTS = [
  {
    n: 1,
    at: NOW,
    status: 503,
    durationMs: 12,
    outcome: "transient",
    error: null,
    snippet: "busy",
    retryAfterSeconds: 30,
  },
  {
    n: 2,
    at: NOW,
    status: 204,
    durationMs: 8,
    outcome: "delivered",
    error: null,
    snippet: null,
    retryAfterSeconds: null,
  },
];

function deliveryRow(id: string, body: Uint8Array | null, bodyParts: number) {
  return {
    id,
    webhookId: V0.webhookId,
    formId: V0.formId,
    eventId: `e-${id}`,
    recordId: V0.submissionId,
    reason: "insert",
    savedAt: NOW,
    status: "delivered",
    contentType: "application/json; charset=utf-8",
    body,
    bodyParts,
    bodyBytes: body?.length ?? 14,
    attempts: ATTEMPTS.length,
    log: ATTEMPTS,
    round: 0,
    token: "",
    nextAttemptAt: null,
    lastAttemptAt: NOW,
    lastStatus: 204,
    lastError: null,
    lastSnippet: null,
    createdAt: NOW,
    updatedAt: NOW,
    completedAt: NOW,
  };
}

/**
 * Writes the version-0 entries into `kv` (which should hold nothing else of theirs).
 *
 * @example
 * ```ts
 * await writeV0Fixture(await Deno.openKv(":memory:"));
 * ```
 */
export async function writeV0Fixture(kv: Deno.Kv): Promise<void> {
  const op = kv.atomic()
    .set(webhookKeys.config(V0.formId, V0.webhookId), {
      id: V0.webhookId,
      formId: V0.formId,
      name: "old",
      url: "http://127.0.0.1:9/hook",
      method: "POST",
      mode: "default",
      template: null,
      bearer: null,
      headers: [],
      signingSecret: null,
      signatureHeader: "X-Service-Signature",
      mappings: {},
      events: ["create", "update"],
      standardWebhooks: false,
      createdAt: NOW,
      updatedAt: NOW,
    })
    .set(webhookKeys.configForm(V0.webhookId), V0.formId)
    .set(
      webhookKeys.delivery(V0.webhookId, V0.inlineId),
      deliveryRow(V0.inlineId, V0.inlineBody, 0),
    )
    .set(webhookKeys.deliveryWebhook(V0.inlineId), V0.webhookId)
    .set(webhookKeys.delivery(V0.webhookId, V0.partsId), deliveryRow(V0.partsId, null, 2))
    .set(webhookKeys.deliveryWebhook(V0.partsId), V0.webhookId)
    // The key as version 0 wrote it (the id as text).
    .set(["submissions", V0.submissionId], {
      id: V0.submissionId,
      formId: V0.formId,
      fingerprint: "ab".repeat(32),
      createdAt: NOW,
      version: 1,
      digest: "cd".repeat(32),
      latestDigest: "cd".repeat(32),
      pending: [],
    });
  V0.partBodies.forEach((part, i) => op.set(webhookKeys.body(V0.partsId, i), part));
  if (!(await op.commit()).ok) throw new Error("the version-0 fixture was not written");
}
