/**
 * Server of bench/serving: one JSON echo handler, served by `Deno.serve` (`deno`) or by
 * Sealpost's serving layer with its default limits (`net`).
 *
 * Usage: deno run -A bench/serving_server.ts deno|net PORT
 */
import { ConfigSchema } from "../src/config/schema.ts";
import { connectionLimits } from "../src/net/config.ts";
import { serveHttp } from "../src/net/listener.ts";

const [layer, port] = [Deno.args[0], Number(Deno.args[1])];
const handler = async (request: Request) => {
  if (request.method !== "POST") return new Response("ok");
  const body = await request.json();
  return Response.json({ formId: body.formId, bytes: body.ciphertext.length });
};
const options = { hostname: "127.0.0.1", port };
if (layer === "deno") Deno.serve({ ...options, onListen: () => {} }, handler);
else serveHttp(options, connectionLimits(ConfigSchema.parse({})), handler);
