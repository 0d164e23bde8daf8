/**
 * A webhook receiver to try Sealpost's webhooks with: it verifies each request's signature
 * with the SDK helper over the raw body, skips a record it has seen already (delivery is at
 * least once), and prints the record.
 *
 * Run: WEBHOOK_SECRET=whsec_… npx -y deno@2.9.6 run -A docs/examples/receiver.ts [port]
 * (default 8787), then point a webhook at it:
 *   npx -y deno@2.9.6 task sealpost webhook add --form <formId> http://127.0.0.1:8787/hook \
 *     --secret-file -
 */
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "../../src/sdk/mod.ts";

const secret = Deno.env.get("WEBHOOK_SECRET");
if (!secret) {
  console.error("Set WEBHOOK_SECRET to the webhook's signing secret");
  Deno.exit(2);
}
const port = Number(Deno.args[0] ?? 8787);
const seen = new Set<string>(); // a database in production

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}/hook`),
}, async (req) => {
  // The signature covers the exact bytes: read them before parsing.
  const raw = new Uint8Array(await req.arrayBuffer());
  if (!verifyWebhookSignature(raw, req.headers.get(WEBHOOK_SIGNATURE_HEADER), secret)) {
    console.log(`refused a request with a missing or wrong signature`);
    return new Response("bad signature", { status: 401 });
  }
  const record = JSON.parse(new TextDecoder().decode(raw));
  const key = `${record._recordId}/${record._reason}/${record._savedAt}`;
  if (seen.has(key)) return new Response(null, { status: 204 });
  seen.add(key);
  console.log(`${record._reason} ${record._recordId}: ${JSON.stringify(record)}`);
  return new Response(null, { status: 204 });
});
