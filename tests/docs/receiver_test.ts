import assert from "node:assert/strict";
import { buildEnvelope, buildPayload, fetchManifest, seal } from "../../src/sdk/mod.ts";
import { freePort, waitFor } from "../_support/process.ts";
import { call, startInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

Deno.test("docs/examples/receiver.ts verifies, prints each record once, refuses bad signatures", async () => {
  const inst = await startInstance();
  const port = freePort();
  const secret = "whsec_" + "ab".repeat(24);
  const receiver = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../../docs/examples/receiver.ts", import.meta.url).pathname,
      String(port),
    ],
    env: { WEBHOOK_SECRET: secret },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines: string[] = [];
  const reading = (async () => {
    const decoder = new TextDecoderStream();
    let buffer = "";
    for await (const chunk of receiver.stdout.pipeThrough(decoder)) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      lines.push(...parts);
    }
  })();
  try {
    const hook = `http://127.0.0.1:${port}/hook`;
    await waitFor(hook);
    const { token, form, pin } = await vaultForm(inst, "Contact", [
      { id: "name", label: "Name", kind: "text", required: true },
    ]);
    const added = await call(`${inst.url}/owner/forms/${form.formId}/webhooks`, {
      method: "POST",
      token,
      json: { url: hook, signingSecret: secret },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));

    const manifest = await fetchManifest(form.formId, { relayUrl: inst.url, pin });
    const envelope = buildEnvelope(
      manifest,
      await seal(buildPayload(manifest, { name: "Ada" }), manifest.recipient.publicKey),
    );
    const sent = await call(`${inst.url}/submissions`, { method: "POST", json: envelope });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));

    for (let i = 0; i < 100 && !lines.some((l) => l.startsWith("insert ")); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const printed = lines.find((l) => l.startsWith("insert "));
    assert.ok(printed, lines.join("\n"));
    assert.match(printed, new RegExp(`^insert ${envelope.submissionId}: `));
    assert.equal(JSON.parse(printed.slice(printed.indexOf(": ") + 2)).name, "Ada");

    const forged = await fetch(hook, {
      method: "POST",
      headers: { "x-service-signature": "sha256=" + "0".repeat(64) },
      body: "{}",
    });
    assert.equal(forged.status, 401);
    await forged.body?.cancel();
  } finally {
    receiver.kill("SIGTERM");
    await receiver.status;
    await reading;
    await inst.close();
  }
});
