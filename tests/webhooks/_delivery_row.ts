/**
 * A webhook delivery row for tests: pending, nothing attempted yet, created at `ISO`; each
 * test overrides what it is about.
 */
import type { WebhookDelivery } from "../../src/store/ports/webhooks.ts";

/** The fixed time the rows are created at. */
export const ISO = "2026-11-23T12:00:00.000Z";

/** A delivery row with `overrides` on top of a pending, unattempted one. */
export function deliveryRow(overrides: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: "d1",
    webhookId: "w1",
    formId: "f1",
    eventId: "e1",
    recordId: "r1",
    reason: "insert",
    savedAt: "2026-11-23T11:59:59.0000000+00:00",
    status: "pending",
    contentType: "application/json; charset=utf-8",
    bodyParts: 0,
    bodyBytes: 10,
    attempts: 0,
    round: 0,
    token: "",
    nextAttemptAt: null,
    lastAttemptAt: null,
    lastStatus: null,
    lastError: null,
    lastSnippet: null,
    createdAt: ISO,
    updatedAt: ISO,
    completedAt: null,
    ...overrides,
  };
}
