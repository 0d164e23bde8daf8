import assert from "node:assert/strict";
import type { WebhookDelivery } from "../../src/store/ports/webhooks.ts";
import {
  type AttemptResult,
  type DeliveryEffect,
  type DeliveryInput,
  transition,
  type TransitionContext,
} from "../../src/webhooks/index.ts";
import { deliveryRow, ISO } from "./_delivery_row.ts";

const NOW = Date.parse(ISO);
const at = (ms: number) => new Date(NOW + ms).toISOString();

/** A fixed clock, the schedule [0, 5, 30] s, jitter 10% drawn as 0.5, tokens t1, t2, … */
function context(schedule = [0, 5, 30]): TransitionContext {
  let tokens = 0;
  return {
    now: NOW,
    settings: { retry_schedule_seconds: schedule, jitter_ratio: 0.1, retry_after_max_seconds: 60 },
    random: () => 0.5,
    token: () => `t${++tokens}`,
  };
}

const row = deliveryRow;

function result(
  status: number | null,
  outcome: AttemptResult["outcome"],
  retryAfterSeconds: number | null = null,
): AttemptResult {
  return {
    at: ISO,
    status,
    durationMs: 3,
    outcome,
    error: status === null ? "timed out" : null,
    snippet: null,
    retryAfterSeconds,
  };
}

/** Effects by kind, the attempt and flag bodies reduced to what the tables check. */
function kinds(effects: DeliveryEffect[]): string[] {
  return effects.map((e) => {
    if (e.kind === "schedule") return `schedule@${e.dueAt - NOW}`;
    if (e.kind === "fail" || e.kind === "report_failure") return `${e.kind}:${e.flag.reason}`;
    if (e.kind === "log_attempt") return `log_attempt#${e.attempt.n}`;
    return e.kind;
  });
}

interface Row {
  name: string;
  before: Partial<WebhookDelivery>;
  input: DeliveryInput;
  status: WebhookDelivery["status"];
  round: number;
  token: string;
  nextAttemptAt: string | null;
  effects: string[];
}

const LIMIT = { maxBodyBytes: 100 };
const QUEUED = { token: "t0", nextAttemptAt: ISO };

const TABLE: Row[] = [
  // Creation.
  {
    name: "created, first wait 0: sent at once, nothing scheduled",
    before: {},
    input: { type: "created", bodyBytes: 10, ...LIMIT },
    status: "pending",
    round: 0,
    token: "",
    nextAttemptAt: null,
    effects: ["send"],
  },
  {
    name: "created, a delete event: skipped, never sent",
    before: { reason: "delete" },
    input: { type: "created", bodyBytes: 0, ...LIMIT },
    status: "skipped",
    round: 0,
    token: "",
    nextAttemptAt: null,
    effects: [],
  },
  {
    name: "created, body over the limit: failed permanently, flagged",
    before: {},
    input: { type: "created", bodyBytes: 101, ...LIMIT },
    status: "failed",
    round: 0,
    token: "",
    nextAttemptAt: null,
    effects: ["fail:permanent"],
  },
  // Attempts: the outcome table.
  {
    name: "first attempt 2xx: delivered, no marker to delete",
    before: {},
    input: { type: "attempted", result: result(204, "delivered") },
    status: "delivered",
    round: 0,
    token: "",
    nextAttemptAt: null,
    effects: ["log_attempt#1"],
  },
  {
    name: "queued attempt 2xx: delivered, its marker deleted",
    before: { ...QUEUED, round: 1, attempts: 1 },
    input: { type: "attempted", result: result(200, "delivered") },
    status: "delivered",
    round: 1,
    token: "t0",
    nextAttemptAt: null,
    effects: ["log_attempt#2", "unschedule"],
  },
  {
    name: "500 at round 0: round 1 due after 5 s + 5% jitter",
    before: {},
    input: { type: "attempted", result: result(500, "transient") },
    status: "pending",
    round: 1,
    token: "t1",
    nextAttemptAt: at(5250),
    effects: ["log_attempt#1", "schedule@5250"],
  },
  {
    name: "timeout (no status) at round 1: round 2 after 30 s + jitter",
    before: { ...QUEUED, round: 1, attempts: 1 },
    input: { type: "attempted", result: result(null, "transient") },
    status: "pending",
    round: 2,
    token: "t1",
    nextAttemptAt: at(31500),
    effects: ["log_attempt#2", "schedule@31500"],
  },
  {
    name: "429 with Retry-After 50 s: the wait raised to 50 s",
    before: {},
    input: { type: "attempted", result: result(429, "transient", 50) },
    status: "pending",
    round: 1,
    token: "t1",
    nextAttemptAt: at(50000),
    effects: ["log_attempt#1", "schedule@50000"],
  },
  {
    name: "503 with Retry-After 600 s: capped at retry_after_max_seconds",
    before: {},
    input: { type: "attempted", result: result(503, "transient", 600) },
    status: "pending",
    round: 1,
    token: "t1",
    nextAttemptAt: at(60000),
    effects: ["log_attempt#1", "schedule@60000"],
  },
  {
    name: "transient at the last round: failed as exhausted",
    before: { ...QUEUED, round: 2, attempts: 2 },
    input: { type: "attempted", result: result(502, "transient") },
    status: "failed",
    round: 2,
    token: "t0",
    nextAttemptAt: null,
    effects: ["log_attempt#3", "unschedule", "fail:exhausted", "report_failure:exhausted"],
  },
  {
    name: "410: failed permanently at once",
    before: {},
    input: { type: "attempted", result: result(410, "permanent") },
    status: "failed",
    round: 0,
    token: "",
    nextAttemptAt: null,
    effects: ["log_attempt#1", "fail:permanent", "report_failure:permanent"],
  },
  // Deferral, re-arm, retry.
  {
    name: "deferred (no slot in time): same round, message after the delay",
    before: {},
    input: { type: "deferred", delayMs: 1000 },
    status: "pending",
    round: 0,
    token: "t1",
    nextAttemptAt: at(1000),
    effects: ["schedule@1000"],
  },
  {
    name: "rearm of a pending delivery (message lost): same round, due now, new token",
    before: { ...QUEUED, round: 2, attempts: 2 },
    input: { type: "rearm" },
    status: "pending",
    round: 2,
    token: "t1",
    nextAttemptAt: ISO,
    effects: ["schedule@0"],
  },
  {
    name: "owner's retry of a failed delivery: round 0, due now, failure cleared",
    before: { ...QUEUED, status: "failed", round: 3, attempts: 4, completedAt: ISO },
    input: { type: "retry" },
    status: "pending",
    round: 0,
    token: "t1",
    nextAttemptAt: ISO,
    effects: ["schedule@0", "clear_failure"],
  },
  {
    name: "owner's retry of a delivered one: sent again",
    before: { status: "delivered", attempts: 1, completedAt: ISO },
    input: { type: "retry" },
    status: "pending",
    round: 0,
    token: "t1",
    nextAttemptAt: ISO,
    effects: ["schedule@0", "clear_failure"],
  },
];

for (const t of TABLE) {
  Deno.test(`transition: ${t.name}`, () => {
    const before = row(t.before);
    const { state, effects } = transition(before, t.input, context());
    assert.equal(state.status, t.status);
    assert.equal(state.round, t.round);
    assert.equal(state.token, t.token);
    assert.equal(state.nextAttemptAt, t.nextAttemptAt);
    assert.deepEqual(kinds(effects), t.effects);
    const closed = t.status === "delivered" || t.status === "failed" || t.status === "skipped";
    assert.equal(state.completedAt, closed ? ISO : null);
    assert.deepEqual(before, row(t.before), "the input state is not changed");
  });
}

Deno.test("transition: an attempt is logged in full and summed up on the state", () => {
  const answer = { ...result(503, "transient", 2), snippet: "busy", durationMs: 41 };
  const { state, effects } = transition(
    row({ attempts: 3 }),
    { type: "attempted", result: answer },
    context(),
  );
  assert.deepEqual(effects[0], {
    kind: "log_attempt",
    attempt: {
      n: 4,
      at: ISO,
      status: 503,
      durationMs: 41,
      outcome: "transient",
      error: null,
      snippet: "busy",
      retryAfterSeconds: 2,
    },
  });
  assert.equal(state.attempts, 4);
  assert.equal(state.lastStatus, 503);
  assert.equal(state.lastSnippet, "busy");
  assert.equal(state.lastAttemptAt, ISO);
});

Deno.test("transition: a failure flag names the delivery, its status and error", () => {
  const { effects } = transition(
    row(),
    { type: "attempted", result: result(null, "permanent") },
    context(),
  );
  const fail = effects.find((e) => e.kind === "fail");
  assert.deepEqual(fail, {
    kind: "fail",
    flag: { at: ISO, deliveryId: "d1", reason: "permanent", status: null, error: "timed out" },
  });
});

Deno.test("transition: a first wait above 0 schedules the creation instead of sending", () => {
  const { state, effects } = transition(
    row(),
    { type: "created", bodyBytes: 10, maxBodyBytes: 100 },
    context([10, 20]),
  );
  assert.equal(state.status, "pending");
  assert.equal(state.token, "t1");
  assert.deepEqual(kinds(effects), ["schedule@10500"]);
});
