import assert from "node:assert/strict";
import { fetchManifest, submitForm, uploadFile } from "../../src/sdk/mod.ts";
import { envelopeFor, publishForm, registerDatabase } from "../_support/owner.ts";
import { startReceiver } from "../webhooks/_harness.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

/** The value of one sample line of `text`, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(url: string, token?: string): Promise<string> {
  const res = await fetch(`${url}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return await res.text();
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 15_000;
  while (!await check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

Deno.test("metrics: names and values after known traffic", async () => {
  const inst = await startInstance({ SEALPOST_WEBHOOKS_RETRY_SCHEDULE_SECONDS: "0,0.2,60" });
  const token = inst.credentials.ownerToken;
  // The first delivery is refused once (503, retried), then every one goes through.
  const receiver = startReceiver((n) => new Response(null, { status: n === 1 ? 503 : 204 }));
  try {
    // A form of the vault: its submissions become records, each pushed to a webhook. Plain
    // files, so the stored blob is exactly the 3000 bytes sent.
    const { form, pin } = await vaultForm(inst, "Metrics", [
      { id: "name", label: "Name", kind: "text", required: true },
      { id: "photo", label: "Photo", kind: "image", required: false },
    ], { files: "plain" });
    const hook = await call(`${inst.url}/owner/forms/${form.formId}/webhooks`, {
      method: "POST",
      token,
      json: { url: receiver.url, events: ["create"] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const photoBytes = crypto.getRandomValues(new Uint8Array(3000));
    const photo = await uploadFile(manifest, { data: photoBytes, mime: "image/png" });
    const receipts = [];
    for (const name of ["a", "b", "c"]) receipts.push(await submitForm(manifest, { name, photo }));
    for (const receipt of receipts) {
      const url = `${inst.url}/vault/forms/${form.formId}/records/${receipt.submissionId}`;
      await waitFor(async () => (await call(url, { token })).status === 200, "a record");
    }
    // An envelope sealed against a schema version the form does not have: quarantined.
    const vaultKey = { id: "", fingerprint: "", publicKey: manifest.recipient.publicKey };
    const stray = await call(`${inst.url}/submissions`, {
      method: "POST",
      json: await envelopeFor({ ...vaultKey, secretKey: new Uint8Array() }, form.formId, {
        values: { name: "x" },
        submittedAt: new Date().toISOString(),
        formVersion: 99,
        formSchema: "",
        mode: "Create",
      }),
    });
    assert.equal(stray.status, 200);
    await waitFor(
      async () => (await call(`${inst.url}/vault/quarantine`, { token })).body.items.length === 1,
      "the quarantined envelope",
    );
    await receiver.waitFor(4, 20_000);
    // A key the vault does not drain: its queue keeps what is submitted to it.
    const db = await registerDatabase(inst);
    await publishForm(inst, db, "fwaiting");
    for (let i = 0; i < 2; i++) {
      const res = await call(`${inst.url}/submissions`, {
        method: "POST",
        json: await envelopeFor(db, "fwaiting"),
      });
      assert.equal(res.status, 200);
    }
    // Refusals: an unknown form (404) and a malformed body (400).
    const unknown = await call(`${inst.url}/submissions`, {
      method: "POST",
      json: await envelopeFor(db, "fnotpublished"),
    });
    assert.equal(unknown.status, 404);
    const malformed = await call(`${inst.url}/submissions`, { method: "POST", json: {} });
    assert.equal(malformed.status, 400);
    const recordUrl = `${inst.url}/vault/forms/${form.formId}/records/${receipts[0].submissionId}`;
    assert.equal((await call(recordUrl, { token })).status, 200);

    const text = await scrape(inst.url);
    // Every family has its HELP and TYPE lines, once.
    for (
      const [name, type] of [
        ["sealpost_http_requests_total", "counter"],
        ["sealpost_http_request_duration_seconds", "histogram"],
        ["sealpost_intake_accepted_total", "counter"],
        ["sealpost_intake_rejected_total", "counter"],
        ["sealpost_queue_depth", "gauge"],
        ["sealpost_queue_oldest_age_seconds", "gauge"],
        ["sealpost_ingest_lag_seconds", "histogram"],
        ["sealpost_ingest_envelopes_total", "counter"],
        ["sealpost_records_saved_total", "counter"],
        ["sealpost_records_deleted_total", "counter"],
        ["sealpost_quarantine_envelopes", "gauge"],
        ["sealpost_webhook_attempts_total", "counter"],
        ["sealpost_webhook_retry_backlog", "gauge"],
        ["sealpost_webhook_deliveries_failed", "gauge"],
        ["sealpost_blob_bytes", "gauge"],
        ["sealpost_blobs", "gauge"],
        ["sealpost_process_memory_bytes", "gauge"],
        ["sealpost_build_info", "gauge"],
        ["sealpost_tls_certificate_days_left", "gauge"],
        ["sealpost_audit_failures_total", "counter"],
      ]
    ) {
      assert.equal(text.split(`# TYPE ${name} ${type}\n`).length, 2, `${name} ${type}`);
      assert.equal(text.split(`# HELP ${name} `).length, 2, name);
    }
    // Requests by route template, never a concrete id.
    assert.ok(!text.includes(receipts[0].submissionId), "no ids in series");
    assert.equal(
      sample(
        text,
        'sealpost_http_requests_total{method="GET",route="/vault/forms/:formId/records/:recordId",status="200"}',
      )! >= 4,
      true,
    );
    assert.equal(
      sample(text, 'sealpost_http_requests_total{method="POST",route="/submissions",status="200"}'),
      6,
    );
    assert.equal(sample(text, 'sealpost_intake_accepted_total{kind="submit"}'), 6);
    assert.equal(
      sample(text, 'sealpost_intake_rejected_total{kind="submit",reason="form_not_found"}'),
      1,
    );
    assert.equal(
      sample(text, 'sealpost_intake_rejected_total{kind="submit",reason="invalid_request"}'),
      1,
    );
    // Queues: the undrained key holds 2; the vault's own queue is empty.
    assert.equal(sample(text, `sealpost_queue_depth{fingerprint="${db.fingerprint}"}`), 2);
    assert.ok(
      sample(text, `sealpost_queue_oldest_age_seconds{fingerprint="${db.fingerprint}"}`)! >= 0,
    );
    const { items } = (await call(`${inst.url}/vault/databases`, { token })).body;
    const fp = items.find((d: { id: string }) => d.id === form.databaseId).fingerprint;
    assert.equal(sample(text, `sealpost_queue_depth{fingerprint="${fp}"}`), 0);
    assert.equal(sample(text, `sealpost_queue_oldest_age_seconds{fingerprint="${fp}"}`), 0);
    // Ingest: three records and one quarantined envelope, lag observed for all four.
    assert.equal(sample(text, 'sealpost_ingest_envelopes_total{outcome="record"}'), 3);
    assert.equal(sample(text, 'sealpost_ingest_envelopes_total{outcome="quarantined"}'), 1);
    assert.equal(sample(text, "sealpost_records_saved_total"), 3);
    assert.equal(sample(text, "sealpost_ingest_lag_seconds_count"), 4);
    assert.ok(sample(text, 'sealpost_ingest_lag_seconds_bucket{le="+Inf"}') === 4);
    assert.equal(sample(text, "sealpost_quarantine_envelopes"), 1);
    // Webhooks: one transient refusal, then three deliveries.
    assert.equal(sample(text, 'sealpost_webhook_attempts_total{outcome="transient"}'), 1);
    assert.equal(sample(text, 'sealpost_webhook_attempts_total{outcome="delivered"}'), 3);
    assert.equal(sample(text, "sealpost_webhook_deliveries_failed"), 0);
    // One blob of 3000 bytes.
    assert.equal(sample(text, "sealpost_blob_bytes"), 3000);
    assert.equal(sample(text, "sealpost_blobs"), 1);
    assert.ok(sample(text, 'sealpost_process_memory_bytes{kind="rss"}')! > 0);
    assert.equal(sample(text, "sealpost_webhook_retry_backlog"), 0);
    // Every audit entry of the calls above was recorded.
    assert.equal(sample(text, "sealpost_audit_failures_total"), 0);
  } finally {
    await inst.close();
    await receiver.close();
  }
});

Deno.test("metrics: metrics.token protects GET /metrics; metrics.enabled = false removes it", async () => {
  const secret = "m3trics-token";
  const inst = await startInstance({ SEALPOST_METRICS_TOKEN: secret });
  try {
    const open = await call(`${inst.url}/metrics`);
    assert.equal(open.status, 401);
    assert.equal(open.body.error.code, "unauthorized");
    const wrong = await call(`${inst.url}/metrics`, { token: "m3trics-tokeN" });
    assert.equal(wrong.status, 401);
    const text = await scrape(inst.url, secret);
    assert.match(
      text,
      /sealpost_http_requests_total\{method="GET",route="\/metrics",status="401"\} 2/,
    );
  } finally {
    await inst.close();
  }
  const off = await startInstance({ SEALPOST_METRICS_ENABLED: "false" });
  try {
    assert.equal((await call(`${off.url}/metrics`)).status, 404);
  } finally {
    await off.close();
  }
});
