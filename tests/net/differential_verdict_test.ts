/**
 * The rule of the differential suite (tests/net/_differential/verdict.ts) on hand-made
 * outcomes: what counts as a refusal, and when Sealpost is judged more lenient than llhttp.
 */
import assert from "node:assert/strict";
import type { Case } from "./_differential/case.ts";
import type { HandlerRecord } from "./_differential/recorder.ts";
import { judge, type Outcome, refused } from "./_differential/verdict.ts";

const CASE: Case = { name: "c", send: "" };
const seen = (method: string, path: string, extra: Partial<HandlerRecord> = {}) => ({
  method,
  path,
  body: null,
  error: false,
  ...extra,
});
const SERVED: Outcome = {
  port: 1,
  responses: [{ status: 204, handler: true, close: false }, {
    status: 204,
    handler: true,
    close: true,
  }],
  rest: "",
  end: "closed",
  records: [seen("GET", "/c"), seen("GET", "/canary")],
  errors: [],
};
const REFUSED: Outcome = {
  ...SERVED,
  responses: [{ status: 400, handler: false, close: true }],
  records: [],
};

Deno.test("refused: a server's own error, or a close not asked for; not a wait", () => {
  assert.equal(refused(SERVED), false);
  assert.equal(refused(REFUSED), true);
  const cutAfterAnswer = { ...SERVED, responses: [SERVED.responses[0]] };
  assert.equal(refused(cutAfterAnswer), true, "closed after a keep-alive answer");
  assert.equal(refused({ ...cutAfterAnswer, end: "idle" }), false, "still waiting");
  const afterClose = {
    ...REFUSED,
    records: [seen("POST", "/c", { body: "hello" })],
    errors: ["HPE_CLOSED_CONNECTION: Data after `Connection: close`"],
  };
  assert.equal(refused(afterClose), false, "llhttp stopping after a closing message");
});

Deno.test("judge: Sealpost refuses where llhttp does, sees no request llhttp did not", () => {
  assert.deepEqual(judge(CASE, SERVED, SERVED), []);
  assert.deepEqual(judge(CASE, REFUSED, REFUSED), []);
  assert.equal(judge(CASE, REFUSED, SERVED).length, 2, "more lenient, and saw more");
  assert.equal(judge(CASE, SERVED, REFUSED).length, 2, "stricter without a reason");
  const stricter = { ...CASE, stricter: "why" };
  assert.deepEqual(judge(stricter, SERVED, REFUSED), []);
  assert.equal(judge(stricter, REFUSED, REFUSED).length, 1, "a stale reason");
  // Refusing earlier than llhttp is no leniency.
  const laterRefusal = { ...REFUSED, records: [seen("POST", "/c", { body: "" })] };
  assert.deepEqual(judge(CASE, laterRefusal, REFUSED), []);
  // Node's handler alone sees a request whose small body never came whole.
  const waiting = { ...SERVED, responses: [], end: "idle" as const, records: [] };
  const cut = { ...waiting, records: [seen("POST", "/c", { error: true, complete: false })] };
  assert.deepEqual(judge(CASE, cut, waiting), []);
  const afterError = {
    ...REFUSED,
    records: [seen("POST", "/c", { error: true }), seen("GET", "/canary")],
  };
  assert.ok(
    judge(CASE, REFUSED, afterError).includes("Sealpost parsed a request after a body error"),
  );
});
