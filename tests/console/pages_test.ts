/**
 * The console's pages over real HTTP: build a form of every kind and publish it, records
 * (escaped values, inline image, search, versions, export, delete), a new version with its
 * diff, sharing, quarantine retry, and webhooks (secret once, preview, failure flagged, retry).
 */
import { ownerGate } from "../_support/people.ts";
import assert from "node:assert/strict";
import { buildEnvelope, buildPayload, fetchManifest, seal, submitForm } from "../../src/sdk/mod.ts";
import { call, startInstance } from "../_support/server.ts";
import { ConsoleClient, csrfOf, firstPerson } from "./_client.ts";
import { builderBody, EVERY_KIND, newDatabase, PNG, startReceiver, waitFor } from "./_fixture.ts";

const XSS = "<img src=x onerror=alert(1)>";

Deno.test("console pages: build, publish, records, versions, share, quarantine", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const databaseId = await newDatabase(inst);
    const browser = new ConsoleClient(inst.url);
    const csrf = await browser.signIn(await firstPerson(inst));

    // The builder: add a field, then publish a form of every kind.
    const added = await browser.post(
      "/console/forms/new",
      { ...builderBody("Everything", EVERY_KIND, "add"), newKind: "geo" },
      csrf,
    );
    const addedPage = await added.text();
    assert.equal(added.status, 200);
    assert.match(addedPage, /name="f\.15\.kind"/, "a 16th field was added");
    const published = await browser.post("/console/forms/new", {
      ...builderBody("Everything", EVERY_KIND, "publish"),
      databaseId,
      formId: "everything",
    }, csrf);
    await published.body?.cancel();
    assert.equal(published.status, 303);
    assert.equal(published.headers.get("location")?.split("?")[0], "/console/forms/everything");
    const form = await call(`${inst.url}/vault/forms/everything`, { token });
    assert.equal(form.body.fields.length, EVERY_KIND.length);
    assert.equal(form.body.publishedVersion, 1);
    assert.deepEqual(form.body.fields[10], {
      id: "langs",
      kind: "choice",
      label: "Languages",
      options: ["en", "fr", "de"],
      multiple: true,
      maxItems: 2,
    });
    const front = await browser.page("/console");
    assert.match(front, /<a href="\/console\/forms\/everything">Everything<\/a>/);

    // The builder's live preview endpoint: the form page's controls, and what is not valid.
    const live = await browser.post("/console/preview/form", {
      ...builderBody("Live <b>", [...EVERY_KIND.slice(0, 2), { id: "x", kind: "choice" }], "x"),
    }, csrf);
    const { doc, problems } = await live.json();
    assert.match(doc, /<input id="pv-name" name="name"/);
    assert.match(doc, /<h1>Live &lt;b&gt;<\/h1>/);
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^x: /);
    // A builder error is shown, nothing is created.
    const bad = await browser.post("/console/forms/new", {
      ...builderBody("Bad", [{ id: "1bad", kind: "text", label: "x" }], "publish"),
      databaseId,
    }, csrf);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /Field id must be a letter/);

    // Submit through the SDK, with the hostile value and an uploaded image.
    const key = await call(`${inst.url}/vault/manifest-key`, { token });
    const manifest = await fetchManifest("everything", {
      relayUrl: inst.url,
      pin: key.body.fingerprint,
    });
    const receipt = await submitForm(manifest, {
      name: XSS,
      age: "36",
      agree: "true",
      langs: ["en", "fr"],
      where: "51.5,-0.12",
    }, { files: { photo: { data: PNG, mime: "image/png", fileName: "dot.png" } } });
    const recordPath = `/console/forms/everything/records/${receipt.submissionId}`;
    await waitFor(async () => {
      const r = await browser.request(recordPath);
      await r.body?.cancel();
      return r.status === 200 ? true : null;
    }, "the record");

    const records = await browser.page("/console/forms/everything/records");
    assert.ok(records.includes("&lt;img src=x onerror=alert(1)&gt;"), "escaped");
    assert.ok(!records.includes(XSS), "never raw");
    assert.match(
      records,
      /<img class="inline" src="http:\/\/127\.0\.0\.1:\d+\/[^"]+" alt="Image dot\.png">/,
    );
    assert.match(records, /<svg class="chart" role="img"/);
    assert.match(records, /1 record\./);
    assert.match(records, /en, fr/);
    const none = await browser.page("/console/forms/everything/records?q=nothing-like-this");
    assert.match(none, /0 records\./);
    const found = await browser.page("/console/forms/everything/records?q=ONERROR&sort=oldest");
    assert.match(found, /1 record\./);
    const future = await browser.page("/console/forms/everything/records?from=2999-01-01");
    assert.match(future, /0 records\./);
    const img = /<img class="inline" src="([^"]+)"/.exec(records)![1];
    const bytes = new Uint8Array(await (await fetch(img.replaceAll("&amp;", "&"))).arrayBuffer());
    assert.deepEqual(bytes, PNG, "the inline image URL serves the upload");

    // Amend: the record page shows both versions and what changed.
    const payload = buildPayload(manifest, { name: "Ada", age: 37 }, { mode: "Update" });
    const envelope = buildEnvelope(manifest, await seal(payload, manifest.recipient.publicKey), {
      submissionId: receipt.submissionId,
    });
    const amend = await call(`${inst.url}/submissions/${receipt.submissionId}`, {
      method: "PUT",
      token: receipt.editToken,
      json: envelope,
    });
    assert.equal(amend.status, 200);
    const recordPage = await waitFor(async () => {
      const page = await browser.page(recordPath);
      return page.includes("amended") ? page : null;
    }, "the amendment");
    assert.match(recordPage, /received/);
    assert.match(recordPage, /submission version 2/);
    assert.match(recordPage, /<del>36<\/del> <ins>37<\/ins>/);
    assert.ok(recordPage.includes("<del>&lt;img src=x onerror=alert(1)&gt;</del>"));

    // Exports stream every record.
    const csv = await browser.page("/console/forms/everything/export.csv");
    const [header, row] = csv.trim().split("\r\n");
    assert.equal(header, "_recordId,_formId,_savedAt," + EVERY_KIND.map((f) => f.id));
    assert.ok(row.startsWith(`${receipt.submissionId},everything,`));
    const jsonl = await browser.page("/console/forms/everything/export.jsonl");
    assert.equal(JSON.parse(jsonl.trim()).values.age, 37);

    // A new version from the builder; the history says what changed.
    const v2Fields = [...EVERY_KIND.slice(0, 14), { id: "note", kind: "text", label: "Note" }];
    const v2 = await browser.post(
      "/console/forms/everything/builder",
      builderBody("Everything v2", v2Fields, "publish"),
      csrf,
    );
    await v2.body?.cancel();
    assert.equal(v2.status, 303);
    const versions = await browser.page("/console/forms/everything/versions");
    assert.match(versions, /Version 2 \(published\)/);
    assert.match(versions, /Added field &quot;note&quot; \(text\)/);
    assert.match(versions, /Removed field &quot;cv&quot;/);
    assert.match(versions, /Title &quot;Everything&quot; → &quot;Everything v2&quot;/);

    // Sharing: link with the pin, embed snippet, QR code.
    const share = await browser.page("/console/forms/everything/share");
    const link = `${inst.url}/f/everything#pin=${key.body.fingerprint}`;
    assert.ok(share.includes(`href="${link}"`));
    assert.ok(share.includes("&lt;iframe src=&quot;" + link.replaceAll("&", "&amp;")));
    const qr = await browser.request("/console/forms/everything/qr.svg");
    assert.equal(qr.headers.get("content-type"), "image/svg+xml");
    assert.match(await qr.text(), /^<svg /);

    // Quarantine: an envelope naming an unknown version; retry after publishing it.
    const stale = buildPayload({ ...manifest, schemaVersion: 3 }, { name: "Grace" });
    const staleEnvelope = buildEnvelope(manifest, await seal(stale, manifest.recipient.publicKey));
    const posted = await call(`${inst.url}/submissions`, { method: "POST", json: staleEnvelope });
    assert.equal(posted.status, 200);
    const quarantine = await waitFor(async () => {
      const page = await browser.page("/console/quarantine");
      return page.includes("unknown_form_version") ? page : null;
    }, "the quarantined envelope");
    assert.match(quarantine, /no schema version 3/);
    const early = await browser.post("/console/quarantine/retry", {}, csrf);
    await early.body?.cancel();
    assert.match(decodeURIComponent(early.headers.get("location")!), /0 saved, 1 still/);
    const v3 = await browser.post(
      "/console/forms/everything/builder",
      builderBody("Everything v3", v2Fields, "publish"),
      csrf,
    );
    await v3.body?.cancel();
    const id = `${staleEnvelope.submissionId}.1`;
    const retried = await browser.post(`/console/quarantine/${id}/retry`, {}, csrf);
    await retried.body?.cancel();
    assert.match(decodeURIComponent(retried.headers.get("location")!), /1 saved/);
    assert.match(await browser.page("/console/quarantine"), /Nothing is quarantined/);

    // Delete a record: the record page links to a confirmation, which posts.
    assert.match(await browser.page(recordPath), new RegExp(`href="${recordPath}/delete"`));
    const confirm = await browser.page(`${recordPath}/delete`);
    assert.match(confirm, new RegExp(`action="${recordPath}/delete"`));
    assert.match(confirm, /Delete record<\/button>/);
    const deleted = await browser.post(`${recordPath}/delete`, {}, csrf);
    await deleted.body?.cancel();
    assert.equal(deleted.status, 303);
    assert.match(await browser.page(recordPath, 404), /No record/);
  } finally {
    await inst.close();
  }
});

Deno.test("console webhooks: secret once, preview, failure flagged, retry, delivered", async () => {
  const inst = await startInstance({ SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS: "0" });
  const receiver = startReceiver();
  const token = inst.credentials.ownerToken;
  try {
    const databaseId = await newDatabase(inst);
    const created = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: {
        databaseId,
        formId: "hooks",
        title: "Hooks",
        fields: [{ id: "name", label: "Name", kind: "text" }],
        publish: true,
      },
    });
    assert.equal(created.status, 201);
    const browser = new ConsoleClient(inst.url);
    const csrf = await browser.signIn(await firstPerson(inst));
    const settings = {
      name: "CRM",
      url: receiver.url,
      method: "PUT",
      mode: "json_template",
      template: '{"who": {{name}}, "id": {{_recordId}}}',
      mappings: "",
      events: ["create", "update"],
      signatureHeader: "X-Sig",
      headers: "X-Env: prod",
      bearer: "bearer-secret-value-123",
      generateSigningSecret: "on",
      concurrency: "2",
    };
    const preview = await browser.post(
      "/console/forms/hooks/webhooks",
      { ...settings, action: "preview" },
      csrf,
    );
    const previewPage = await preview.text();
    assert.equal(preview.status, 200);
    assert.match(previewPage, /sample record \(application\/json; charset=utf-8\)/);
    assert.ok(previewPage.includes(
      '<pre class="body-preview">{&quot;who&quot;: &quot;Sample text&quot;, &quot;id&quot;: &quot;sample_record&quot;}</pre>',
    ));
    // The live preview's endpoint (the console island posts the editor to it).
    const live = await browser.post(
      "/console/forms/hooks/webhooks/preview",
      { ...settings, template: "<a>{{name}}</a>", mode: "xml_template" },
      csrf,
    );
    assert.deepEqual(await live.json(), {
      body: "<a>Sample text</a>",
      contentType: "application/xml; charset=utf-8",
    });
    const liveBad = await browser.post(
      "/console/forms/hooks/webhooks/preview",
      { ...settings, template: "" },
      csrf,
    );
    assert.match((await liveBad.json()).error, /needs a template/);
    const refused = await browser.post("/console/forms/hooks/webhooks/preview", settings, null);
    await refused.body?.cancel();
    assert.equal(refused.status, 403);
    const invalid = await browser.post(
      "/console/forms/hooks/webhooks",
      { ...settings, template: "{ not json", action: "save" },
      csrf,
    );
    assert.equal(invalid.status, 400);
    assert.match(await invalid.text(), /does not render valid JSON/);

    const saved = await browser.post(
      "/console/forms/hooks/webhooks",
      { ...settings, action: "save" },
      csrf,
    );
    const savedPage = await saved.text();
    assert.equal(saved.status, 200);
    const secret = /<p class="secret">(whsec_[^<]+)<\/p>/.exec(savedPage)![1];
    const webhookId = /action="\/console\/webhooks\/([0-9a-f]{24})"/.exec(savedPage)![1];
    const stored = (await inst.server.webhooks.webhooks.config(webhookId))!;
    assert.equal(stored.signingSecret, secret);
    assert.equal(stored.method, "PUT");
    assert.equal(stored.concurrency, 2);
    assert.deepEqual(stored.headers, [["X-Env", "prod"]]);
    const again = await browser.page(`/console/webhooks/${webhookId}`);
    assert.ok(!again.includes(secret), "the secret is shown once");
    assert.ok(!again.includes("bearer-secret-value-123"));
    assert.match(again, /set: \*\*\*\*/);

    // A test send reaches the (failing) receiver and says so.
    const test = await browser.post(`/console/webhooks/${webhookId}/test`, {}, csrf);
    assert.match(await test.text(), /Test send: permanent/);

    // A record: the receiver answers 400, the delivery fails, the webhook is flagged.
    await call(`${inst.url}/vault/forms/hooks/records`, {
      method: "POST",
      token,
      json: { values: { name: "Ada" } },
    });
    const flagged = await waitFor(async () => {
      const page = await browser.page("/console");
      return page.includes("Webhook failures need your attention") ? page : null;
    }, "the flag on the front page");
    assert.match(flagged, /failed permanently \(HTTP 400/);
    const hookPage = await browser.page(`/console/webhooks/${webhookId}`);
    assert.match(hookPage, /class="flag"/);
    assert.match(hookPage, /nope: bad request/);
    const deliveryId = /href="\/console\/deliveries\/([0-9a-f]{32})"/.exec(hookPage)![1];
    const attempts = await browser.page(`/console/deliveries/${deliveryId}`);
    assert.match(attempts, /<td>400<\/td>/);
    assert.match(attempts, /\d+ ms/);

    // Fix the receiver, retry all failed: delivered, the flag is gone.
    receiver.state.status = 200;
    const retry = await browser.post(`/console/webhooks/${webhookId}/retry-failed`, {}, csrf);
    await retry.body?.cancel();
    assert.match(decodeURIComponent(retry.headers.get("location")!), /Retrying 1 failed/);
    await waitFor(async () => {
      const page = await browser.page(`/console/webhooks/${webhookId}`);
      return page.includes("<strong>delivered</strong>") ? page : null;
    }, "the delivery");
    assert.doesNotMatch(await browser.page("/console"), /need your attention/);
    const last = JSON.parse(receiver.state.received.at(-1)!);
    assert.equal(last.who, "Ada");

    // Edit: blank secrets stay, a changed method is saved; remove.
    const edit = await browser.post(`/console/webhooks/${webhookId}`, {
      ...settings,
      generateSigningSecret: "",
      bearer: "",
      headers: "",
      method: "PATCH",
      action: "save",
    }, csrf);
    await edit.body?.cancel();
    assert.equal(edit.status, 303);
    const edited = (await inst.server.webhooks.webhooks.config(webhookId))!;
    assert.equal(edited.method, "PATCH");
    assert.equal(edited.signingSecret, secret);
    assert.equal(edited.bearer, "bearer-secret-value-123");
    assert.deepEqual(edited.headers, [["X-Env", "prod"]]);
    const removed = await browser.post(`/console/webhooks/${webhookId}/delete`, {}, csrf);
    await removed.body?.cancel();
    assert.equal(await inst.server.webhooks.webhooks.config(webhookId), null);
    assert.equal(csrfOf(await browser.page("/console")), csrf);
  } finally {
    await receiver.close();
    await inst.close();
  }
});

Deno.test("console records: pages of 50 by cursor, newest first, beside the count", async () => {
  const inst = await startInstance();
  const token = inst.credentials.ownerToken;
  try {
    const databaseId = await newDatabase(inst);
    await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token,
      json: {
        databaseId,
        formId: "many",
        title: "Many",
        fields: [{ id: "n", label: "N", kind: "number" }],
      },
    });
    const vault = inst.server.vault!;
    const gate = await ownerGate(vault, inst.credentials.userId);
    for (let n = 1; n <= 62; n++) {
      await vault.createRecord(gate, "many", { n });
      // Receipt times have millisecond precision: records of the same millisecond may come in
      // either order.
      await new Promise((r) => setTimeout(r, 2));
    }
    const browser = new ConsoleClient(inst.url);
    await browser.signIn(await firstPerson(inst));
    const first = await browser.page("/console/forms/many/records");
    assert.match(first, /62 records\./);
    const cells = (page: string) =>
      [...page.matchAll(/<td class="value">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    assert.deepEqual(cells(first), Array.from({ length: 50 }, (_, i) => 62 - i));
    const next = /<a href="([^"]+cursor=[^"]+)">Next<\/a>/.exec(first)![1].replaceAll("&amp;", "&");
    const second = await browser.page(next);
    assert.deepEqual(cells(second), Array.from({ length: 12 }, (_, i) => 12 - i));
    assert.doesNotMatch(second, />Next</);
    assert.match(second, />First page</);
    const oldest = await browser.page("/console/forms/many/records?sort=oldest");
    assert.deepEqual(cells(oldest).slice(0, 3), [1, 2, 3]);
    // Ids that cannot be ids are not found, never a 5xx.
    for (const path of [`/console/forms/${"f".repeat(3000)}/records`, "/console/forms/a%20b"]) {
      const odd = await browser.request(path);
      await odd.body?.cancel();
      assert.equal(odd.status, 404, path.slice(0, 40));
    }
    const longRecord = await browser.request(`/console/forms/many/records/${"r".repeat(3000)}`);
    await longRecord.body?.cancel();
    assert.equal(longRecord.status, 404);
    // A cursor that names no page is refused or empty, never a 5xx.
    for (const cursor of ["AAAA", "x".repeat(3000), "%00"]) {
      const odd = await browser.request(`/console/forms/many/records?cursor=${cursor}`);
      await odd.body?.cancel();
      assert.ok(odd.status === 200 || odd.status === 400, `${cursor}: ${odd.status}`);
    }
  } finally {
    await inst.close();
  }
});
