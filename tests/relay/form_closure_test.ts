/**
 * Closing, reopening and unpublishing a published form at the relay (our addition to the
 * specification): a closed form answers 410 `form_closed` with the owner's message to a POST,
 * an amendment, its manifest and its page; an unpublished one answers as an unknown form.
 */
import assert from "node:assert/strict";
import {
  envelopeFor,
  publishForm,
  registerDatabase,
  type TestDatabase,
} from "../_support/owner.ts";
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { CLOSED_MESSAGE_MAX, DEFAULT_CLOSED_MESSAGE } from "../../src/forms/closure.ts";

async function setup() {
  const inst = await startInstance();
  const db = await registerDatabase(inst);
  await publishForm(inst, db, "contact");
  return { inst, db };
}

const owner = (inst: TestInstance) => inst.credentials.ownerToken;

function close(inst: TestInstance, formId: string, json: unknown = {}, token = owner(inst)) {
  return call(`${inst.url}/owner/forms/${formId}/close`, { method: "POST", token, json });
}

async function submitted(inst: TestInstance, db: TestDatabase) {
  const envelope = await envelopeFor(db, "contact");
  const res = await call(`${inst.url}/submissions`, { method: "POST", json: envelope });
  return { envelope, res };
}

Deno.test("closed form: POST, PUT, manifest and page answer 410 form_closed with the owner's message; reopened, it takes submissions again", async () => {
  const { inst, db } = await setup();
  try {
    const before = await submitted(inst, db);
    assert.equal(before.res.status, 200);
    const message = "Registration is over.\nSee you <b>next</b> year & thanks!";
    const closed = await close(inst, "contact", { message });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    assert.equal(closed.body.closed.message, message);

    const post = await submitted(inst, db);
    assert.equal(post.res.status, 410);
    assert.deepEqual(post.res.body, { error: { code: "form_closed", message } });

    // An amendment of a submission made while the form was open: refused too, same answer.
    const amended = await envelopeFor(db, "contact", undefined, before.envelope.submissionId);
    const put = await call(`${inst.url}/submissions/${before.envelope.submissionId}`, {
      method: "PUT",
      token: before.res.body.editToken,
      json: amended,
    });
    assert.equal(put.status, 410);
    assert.deepEqual(put.body, { error: { code: "form_closed", message } });

    // A replay of what was accepted before the close still answers its receipt.
    const replay = await call(`${inst.url}/submissions`, {
      method: "POST",
      json: before.envelope,
    });
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, before.res.body);

    const manifest = await call(`${inst.url}/forms/contact/manifest`);
    assert.equal(manifest.status, 410);
    assert.equal(manifest.body.error.code, "form_closed");
    // Never kept by a browser: the form may reopen at any moment.
    assert.equal(manifest.headers.get("cache-control"), "no-cache");

    const page = await fetch(`${inst.url}/f/contact`);
    const html = await page.text();
    assert.equal(page.status, 410);
    assert.match(html, /This form is closed\./);
    assert.match(html, /See you &lt;b&gt;next&lt;\/b&gt; year &amp; thanks!/, "escaped");
    assert.doesNotMatch(html, /<form|<script/);

    const reopened = await call(`${inst.url}/owner/forms/contact/reopen`, {
      method: "POST",
      token: owner(inst),
    });
    assert.equal(reopened.status, 200);
    assert.equal(reopened.body.closed, null);
    assert.equal((await submitted(inst, db)).res.status, 200);
    const reopenedManifest = await call(`${inst.url}/forms/contact/manifest`);
    assert.equal(reopenedManifest.status, 200);
    assert.equal(reopenedManifest.headers.get("cache-control"), "no-cache");
    const open = await fetch(`${inst.url}/f/contact`);
    assert.equal(open.status, 200);
    await open.body?.cancel();
  } finally {
    await inst.close();
  }
});

Deno.test("closed form: no message gives the default words; a new version stays closed; message rules", async () => {
  const { inst, db } = await setup();
  try {
    assert.equal((await close(inst, "contact")).status, 200);
    const post = await submitted(inst, db);
    assert.deepEqual(post.res.body, {
      error: { code: "form_closed", message: DEFAULT_CLOSED_MESSAGE },
    });
    await publishForm(inst, db, "contact");
    assert.equal((await submitted(inst, db)).res.status, 410, "republished, still closed");

    const long = await close(inst, "contact", { message: "x".repeat(CLOSED_MESSAGE_MAX + 1) });
    assert.equal(long.status, 400);
    assert.equal(long.body.error.field, "message");
    const controls = await close(inst, "contact", { message: "  Closed\u0007 for now\r\n " });
    assert.equal(controls.body.closed.message, "Closed for now");

    // Another user's form, or none: the same 404.
    const user = await call(`${inst.url}/admin/users`, {
      method: "POST",
      token: inst.credentials.adminToken,
      json: { name: "eve" },
    });
    const other = await close(inst, "contact", {}, user.body.ownerToken);
    assert.equal(other.status, 404);
    assert.equal(other.body.error.code, "form_not_found");
    assert.equal((await close(inst, "nope")).status, 404);
    const unauthenticated = await call(`${inst.url}/owner/forms/contact/close`, {
      method: "POST",
      json: {},
    });
    assert.equal(unauthenticated.status, 401);
  } finally {
    await inst.close();
  }
});

Deno.test("unpublished form: manifest, page and submissions answer as for an unknown form", async () => {
  const { inst, db } = await setup();
  try {
    const queued = await submitted(inst, db);
    assert.equal(queued.res.status, 200);
    const gone = await call(`${inst.url}/owner/forms/contact`, {
      method: "DELETE",
      token: owner(inst),
    });
    assert.equal(gone.status, 204);
    const manifest = await call(`${inst.url}/forms/contact/manifest`);
    assert.equal(manifest.status, 404);
    assert.equal(manifest.body.error.code, "form_not_found");
    const post = await submitted(inst, db);
    assert.equal(post.res.status, 404);
    assert.equal(post.res.body.error.code, "form_not_found");
    const page = await fetch(`${inst.url}/f/contact`);
    assert.equal(page.status, 404);
    await page.body?.cancel();
    const again = await call(`${inst.url}/owner/forms/contact`, {
      method: "DELETE",
      token: owner(inst),
    });
    assert.equal(again.status, 404);
    // What was queued before stays for the owner.
    const queue = await call(`${inst.url}/owner/queues/${db.fingerprint}`, {
      token: owner(inst),
    });
    assert.equal(queue.body.items.length, 1);
  } finally {
    await inst.close();
  }
});
