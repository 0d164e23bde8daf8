/**
 * Baseline for bench/intake: a bare Deno.serve that parses the JSON body and does one KV
 * atomic check+set per request — the least a durable intake must do.
 *
 * Usage: deno run -A bench/intake_baseline.ts <port> <kv-path>
 */
const [port, path] = Deno.args;
const kv = await Deno.openKv(path);
Deno.serve({ hostname: "127.0.0.1", port: Number(port), onListen: () => {} }, async (req) => {
  const body = await req.json();
  const key = ["submissions", body.submissionId];
  const result = await kv.atomic().check({ key, versionstamp: null }).set(key, body).commit();
  return Response.json({ submissionId: body.submissionId, stored: result.ok });
});
