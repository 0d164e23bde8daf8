/**
 * The serving-layer tests' app and server: an echo handler on `serveHttp` with test limits.
 */
import type { ExchangeInfo } from "../../src/net/connection.ts";
import { type HttpServer, serveHttp } from "../../src/net/listener.ts";
import type { ConnectionLimits } from "../../src/net/limits.ts";
import { sleep, testLimits } from "./_raw.ts";

/**
 * Echo app: reports method, path, body size and peer; /slow waits; /big streams a large answer;
 * /stream/* is a large transfer (held to the throughput rule, as the app holds blob routes).
 */
export async function echo(request: Request, info: ExchangeInfo): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname.startsWith("/stream")) info.holdToThroughput();
  if (url.pathname === "/slow") await sleep(Number(url.searchParams.get("ms")));
  if (url.pathname === "/big") {
    const chunk = new Uint8Array(100_000).fill(97);
    let left = 5;
    return new Response(
      new ReadableStream({
        pull(controller) {
          if (left-- === 0) controller.close();
          else controller.enqueue(chunk);
        },
      }),
    );
  }
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : new Uint8Array();
  return Response.json({
    method: request.method,
    path: url.pathname,
    host: request.headers.get("host"),
    bytes: body.byteLength,
    peer: info.remoteAddr.hostname,
  });
}

/** Runs `fn` against an echo server with `overrides` of the test limits, then shuts it down. */
export async function withServer(
  overrides: Partial<ConnectionLimits>,
  fn: (server: HttpServer, port: number) => Promise<void>,
) {
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0 },
    testLimits(overrides),
    echo,
    () => {},
  );
  try {
    await fn(server, server.addr.port);
  } finally {
    await server.shutdown();
  }
}
