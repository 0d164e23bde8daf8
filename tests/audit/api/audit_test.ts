/**
 * GET /vault/audit and /vault/audit/head over HTTP: pages newest first through `nextCursor`,
 * the filters alone and together, refusals (a person who is no instance admin, a token without
 * the admin scope, a bad filter), and the signed head.
 */
import assert from "node:assert/strict";
import { positionSigned } from "../../../src/audit/chain.ts";
import { fromBase64 } from "../../../src/crypto/encoding.ts";
import type { AuditEntry, AuditEvent } from "../../../src/store/ports/audit.ts";
import { addPerson } from "../../_support/people.ts";
import { call, startInstance } from "../../_support/server.ts";

const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, fn, sanitizeResources: false, sanitizeOps: false });

test("GET /vault/audit: pages newest first, filters by person, database and action", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const audit = inst.server.vault!.audit;
    // Seven events of two persons on two databases, after whatever the first start recorded.
    const events: AuditEvent[] = [];
    for (let n = 0; n < 7; n++) {
      events.push({
        action: n % 2 === 0 ? "record_viewed" : "form_updated",
        personId: n < 4 ? "alice" : "bob",
        databaseId: n % 3 === 0 ? "db-one" : "db-two",
        target: { kind: "record", id: `r${n}` },
      });
    }
    for (const event of events) await audit.record(event);
    const all = await call(`${inst.url}/vault/audit?limit=500`, { token });
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.equal(all.body.nextCursor, null);
    const seqs = all.body.items.map((e: AuditEntry) => e.seq);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => b - a), "newest first");
    assert.deepEqual(
      all.body.items.slice(0, 7).map((e: AuditEntry) => e.event.target?.id),
      ["r6", "r5", "r4", "r3", "r2", "r1", "r0"],
    );

    // Pages of 3 through the cursor: every entry once, in order.
    const paged: number[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: AuditEntry[]; nextCursor: string | null } } =
        await call(`${inst.url}/vault/audit?limit=3${cursor ? `&before=${cursor}` : ""}`, {
          token,
        });
      assert.equal(page.status, 200);
      assert.ok(page.body.items.length <= 3);
      paged.push(...page.body.items.map((e) => e.seq));
      cursor = page.body.nextCursor;
    } while (cursor !== null);
    assert.deepEqual(paged, seqs);

    const ids = async (query: string) => {
      const res = await call(`${inst.url}/vault/audit?${query}`, { token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.map((e: AuditEntry) => e.event.target?.id);
    };
    assert.deepEqual(await ids("personId=alice"), ["r3", "r2", "r1", "r0"]);
    assert.deepEqual(await ids("databaseId=db-one"), ["r6", "r3", "r0"]);
    assert.deepEqual(await ids("personId=bob&action=record_viewed"), ["r6", "r4"]);
    assert.deepEqual(await ids("personId=bob&action=record_viewed&limit=1"), ["r6"]);
    const filteredPage = await call(`${inst.url}/vault/audit?personId=alice&limit=3`, { token });
    assert.deepEqual(
      await ids(`personId=alice&before=${filteredPage.body.nextCursor}`),
      ["r0"],
      "the cursor of a filtered page goes on with the filter",
    );
    assert.deepEqual(await ids("personId=carol"), []);

    // Bad input: a 400, never a 5xx.
    for (const query of ["action=read_minds", "before=0", "before=x", "limit=0", "limit=501"]) {
      const res = await call(`${inst.url}/vault/audit?${query}`, { token });
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
    }
    // A person who is no instance admin, and the admin's token without the admin scope.
    const member = await addPerson(inst);
    const refused = await call(`${inst.url}/vault/audit`, { token: member.token });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, "forbidden");
    const scopeless = await addPerson(inst, { instanceAdmin: true, scopes: ["records:read"] });
    const noScope = await call(`${inst.url}/vault/audit`, { token: scopeless.token });
    assert.equal(noScope.status, 403);
    assert.equal(noScope.body.error.code, "insufficient_scope");
    assert.equal((await call(`${inst.url}/vault/audit`)).status, 401);

    // The head, signed with the manifest key, for any person.
    const head = await call(`${inst.url}/vault/audit/head`, { token: member.token });
    assert.equal(head.status, 200);
    assert.equal(head.body.seq, seqs[0]);
    assert.equal(head.body.hash, all.body.items[0].hash);
    const key = await call(`${inst.url}/vault/manifest-key`, { token });
    assert.equal(head.body.publicKey, key.body.publicKey);
    assert.ok(
      positionSigned("head", head.body, head.body.signature, fromBase64(key.body.publicKey)),
    );
  } finally {
    await inst.close();
  }
});
