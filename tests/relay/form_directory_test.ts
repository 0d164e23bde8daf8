/**
 * The relay's form directory over one store shared by two relays (two directories): each
 * relay's own close, reopen and unpublish show at once; the other relay's show once its cached
 * entry is `maxAgeMs` old.
 */
import assert from "node:assert/strict";
import { FormDirectory } from "../../src/relay/manifests.ts";
import { KvManifests } from "../../src/store/kv/manifests.ts";
import type { PublishedForm } from "../../src/store/ports/manifests.ts";
import { freshKv } from "../store/contract/_kv.ts";

const ROW: PublishedForm = {
  formId: "rsvp",
  userId: "u1",
  fingerprint: "fp1",
  publicKey: "A".repeat(43) + "=",
  schemaVersion: 1,
  manifest: { formId: "rsvp", schemaVersion: 1 },
  publishedAt: "2030-01-01T00:00:00.000Z",
};

Deno.test("form directory: changes by another relay show once the cached entry is old", async () => {
  const { kv, close } = await freshKv();
  try {
    const manifests = new KvManifests(kv);
    const identity = { recipientOwner: () => Promise.resolve(null) };
    const here = new FormDirectory({ manifests, identity }, 100, 200);
    const there = new FormDirectory({ manifests, identity }, 100, 200);
    assert.equal(await manifests.put(ROW, null), true);
    assert.equal((await there.get("rsvp"))?.closed, undefined);

    const closed = await here.close("u1", "rsvp", "  Full\r\n ");
    assert.equal(closed.closed?.message, "Full");
    assert.ok((await here.get("rsvp"))?.closed, "this relay's own change shows at once");
    assert.equal((await there.get("rsvp"))?.closed, undefined, "cached at the other relay");
    await new Promise((r) => setTimeout(r, 250));
    assert.ok((await there.get("rsvp"))?.closed, "read again once old");

    await there.reopen("u1", "rsvp");
    assert.equal((await there.get("rsvp"))?.closed, undefined);
    assert.equal(await there.unpublish("u1", "rsvp"), true);
    assert.equal(await there.get("rsvp"), null);
    await new Promise((r) => setTimeout(r, 250));
    assert.equal(await here.get("rsvp"), null);
    assert.equal(await here.unpublish("u1", "rsvp"), false, "nothing left to unpublish");
    await assert.rejects(here.close("u1", "rsvp", ""), /no published form "rsvp"/);
  } finally {
    await close();
  }
});
