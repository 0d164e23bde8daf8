import assert from "node:assert/strict";
import type { WebhookAttempt } from "../../src/store/ports/webhooks.ts";
import { changeOf } from "../../src/webhooks/scheduler.ts";
import type { DeliveryEffect, FailureFlag } from "../../src/webhooks/transition.ts";
import { deliveryRow, ISO } from "./_delivery_row.ts";

const STATE = deliveryRow({ status: "pending", token: "t1", round: 1, attempts: 1 });
const ATTEMPT: WebhookAttempt = {
  n: 1,
  at: ISO,
  status: 503,
  durationMs: 3,
  outcome: "transient",
  error: null,
  snippet: "busy",
  retryAfterSeconds: null,
};
const FLAG: FailureFlag = {
  at: ISO,
  deliveryId: "d1",
  reason: "exhausted",
  status: 503,
  error: null,
};

/** Each transition effect becomes one part of the store write; the rest is the runner's. */
const TABLE: { name: string; effects: DeliveryEffect[]; change: Record<string, unknown> }[] = [
  { name: "no effects: the state alone", effects: [], change: {} },
  { name: "send: nothing written", effects: [{ kind: "send" }], change: {} },
  {
    name: "log_attempt: the attempt's row",
    effects: [{ kind: "log_attempt", attempt: ATTEMPT }],
    change: { attempt: ATTEMPT },
  },
  {
    name: "schedule: the next attempt due",
    effects: [{ kind: "schedule", dueAt: 1234 }],
    change: { schedule: { dueAt: 1234 } },
  },
  {
    name: "unschedule: nothing due",
    effects: [{ kind: "unschedule" }],
    change: { schedule: null },
  },
  {
    name: "fail (and report, left to the runner): listed and flagged",
    effects: [
      { kind: "log_attempt", attempt: ATTEMPT },
      { kind: "unschedule" },
      { kind: "fail", flag: FLAG },
      { kind: "report_failure", flag: FLAG, attempts: 1 },
    ],
    change: { attempt: ATTEMPT, schedule: null, failure: { flag: FLAG } },
  },
  {
    name: "clear_failure: unlisted, the flag cleared",
    effects: [{ kind: "schedule", dueAt: 5 }, { kind: "clear_failure" }],
    change: { schedule: { dueAt: 5 }, failure: "clear" },
  },
];

for (const row of TABLE) {
  Deno.test(`scheduler: ${row.name}`, () => {
    assert.deepEqual(changeOf(STATE, row.effects), { state: STATE, ...row.change });
  });
}
