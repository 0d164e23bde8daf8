/**
 * Fixture of the file-descriptor test: serveHttp with a connection cap set above what the
 * process's open-file limit allows, so that `accept` runs into EMFILE. Prints its port.
 */
import { serveHttp } from "../../src/net/listener.ts";
import { testLimits } from "./_raw.ts";

const server = serveHttp(
  { hostname: "127.0.0.1", port: 0 },
  testLimits({ maxConnections: 100_000, maxConnectionsPerAddress: 100_000, headerTimeoutMs: 2000 }),
  () => new Response("ok"),
  (line) => console.error(line),
);
// As `sealpost serve` does, before any load: stop on SIGTERM.
Deno.addSignalListener("SIGTERM", () => server.shutdown());
console.log(server.addr.port);
await server.finished;
