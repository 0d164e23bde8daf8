/**
 * The role matrix (tests/people/_matrix.ts) over real HTTP: every vault route, webhook route
 * and console page × {owner, editor, viewer, non-member, removed member, expired token, token
 * without the scope}; 0 holes. The API cases cover every operation of the OpenAPI document
 * under /vault and the webhook routes.
 */
import assert from "node:assert/strict";
import { call } from "../_support/server.ts";
import {
  API_CASES,
  callApi,
  callConsole,
  CONSOLE_CASES,
  expected,
  type Fixture,
  matches,
  PERSONAS,
  type RouteCase,
  startMatrix,
} from "./_matrix.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });

test("role matrix: every vault and webhook route, every kind of caller, 0 holes", async () => {
  const m = await startMatrix();
  try {
    const doc = (await call(`${m.inst.url}/openapi.json`)).body;
    const operations = Object.entries(doc.paths as Record<string, object>).flatMap((
      [path, ops],
    ) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`))
      .filter((op) =>
        / \/(vault\/|owner\/(forms\/\{formId\}\/webhooks|webhooks|deliveries))/.test(op)
      );
    const covered = new Set(API_CASES.map((c) => c.route.replace(/ \(.*\)$/, "")));
    assert.deepEqual(operations.filter((op) => !covered.has(op)), [], "routes without a case");
    const holes = await run(m, API_CASES, false);
    assert.deepEqual(holes, [], `${holes.length} holes`);
    // A non-member's and a removed member's lists hold nothing of the database.
    for (const persona of ["nonMember", "removed"] as const) {
      for (const path of ["/vault/databases", "/vault/forms", "/vault/quarantine"]) {
        const res = await call(`${m.inst.url}${path}`, { token: m.tokens[persona] });
        assert.deepEqual(res.body.items, [], `${persona} ${path}`);
      }
    }
  } finally {
    await m.close();
  }
});

test("role matrix: every console page and action, every kind of caller, 0 holes", async () => {
  const m = await startMatrix();
  try {
    const holes = await run(m, CONSOLE_CASES, true);
    assert.deepEqual(holes, [], `${holes.length} holes`);
  } finally {
    await m.close();
  }
});

/** Calls every case as every caller; the calls that did not get what they should. */
async function run(
  m: Awaited<ReturnType<typeof startMatrix>>,
  cases: RouteCase[],
  console: boolean,
): Promise<string[]> {
  const holes: string[] = [];
  for (const c of cases) {
    for (const persona of PERSONAS) {
      const f: Fixture = c.fresh
        ? { ...await m.fresh(), deliveryId: m.shared.deliveryId }
        : m.shared;
      const got = console ? await callConsole(m, c, persona, f) : await callApi(m, c, persona, f);
      const want = expected(c, persona, console);
      if (!matches(got, want)) {
        holes.push(
          `${c.route} as ${persona}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
        );
      }
    }
  }
  return holes;
}
