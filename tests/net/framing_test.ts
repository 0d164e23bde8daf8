/**
 * The serving layer's framing, class by class: each test sends what today's parser must refuse
 * or handle as RFC 9112 says, and shows that nothing after an error is ever served as a request.
 * (Node's parser on the same bytes: differential_test.ts.)
 */
import assert from "node:assert/strict";
import type { ExchangeInfo } from "../../src/net/connection.ts";
import { serveHttp } from "../../src/net/listener.ts";
import type { ConnectionLimits } from "../../src/net/limits.ts";
import { echo } from "./_echo.ts";
import { connect, latin1, readUntilClosed, send, sleep, testLimits } from "./_raw.ts";

/**
 * A server whose handler records each request it is handed and reads bodies the way the app
 * does (a body error becomes the handler's own 400, as Hono answers a body it cannot parse).
 */
async function withRecorder(
  overrides: Partial<ConnectionLimits>,
  fn: (port: number, seen: string[]) => Promise<void>,
) {
  const seen: string[] = [];
  const handler = async (request: Request, info: ExchangeInfo) => {
    const url = new URL(request.url);
    seen.push(`${request.method} ${url.pathname}`);
    if (url.pathname.startsWith("/stream")) info.holdToThroughput();
    if (request.body && url.pathname !== "/ignore-body") {
      try {
        await request.arrayBuffer();
      } catch {
        return Response.json({ error: { code: "invalid_json" } }, { status: 400 });
      }
    }
    return await echo(new Request(request.url, { headers: request.headers }), info);
  };
  const server = serveHttp({ hostname: "127.0.0.1", port: 0 }, testLimits(overrides), handler);
  try {
    await fn(server.addr.port, seen);
  } finally {
    await server.shutdown();
  }
}

/** Sends `bytes` on a new connection and reads until the server closes it. */
async function exchange(port: number, bytes: string | Uint8Array, limitMs = 5000) {
  const conn = await connect(port);
  await send(conn, typeof bytes === "string" ? latin1(bytes) : bytes);
  return await readUntilClosed(conn, limitMs);
}

const CANARY = "GET /canary HTTP/1.1\r\nHost: t\r\n\r\n";

Deno.test("framing: a body error under the handler answers 400 with close; nothing after it is a request", async () => {
  await withRecorder({}, async (port, seen) => {
    // The chunk's data overruns its size; a lenient reader resyncs at "0" and serves the canary.
    const smuggle = "POST /submissions HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
      "5\r\nhelloXX\r\n0\r\n\r\n" + CANARY;
    const result = await exchange(port, smuggle);
    assert.deepEqual(seen, ["POST /submissions"]);
    assert.match(result.text, /^HTTP\/1\.1 400 /);
    assert.match(result.text, /connection: close\r\n/);
    assert.doesNotMatch(result.text, /canary/);
    assert.ok(result.closedByServer);
    // The same with a body the handler never reads: dropped, the connection closed.
    seen.length = 0;
    const ignored = await exchange(
      port,
      "POST /ignore-body HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "3\r\nabcXX\r\n0\r\n\r\n" + CANARY,
    );
    assert.deepEqual(seen, ["POST /ignore-body"]);
    assert.equal(ignored.text.match(/HTTP\/1\.1/g)?.length, 1);
    assert.ok(ignored.closedByServer);
  });
});

Deno.test("framing: Transfer-Encoding in an HTTP/1.0 request is faulty framing", async () => {
  await withRecorder({}, async (port, seen) => {
    const result = await exchange(
      port,
      "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n" +
        CANARY,
    );
    assert.match(result.text, /^HTTP\/1\.1 400 /);
    assert.deepEqual(seen, []);
    assert.ok(result.closedByServer);
  });
});

Deno.test("framing: only SP and HTAB are optional whitespace around a field value", async () => {
  await withRecorder({}, async (port, seen) => {
    for (
      const field of [
        "Content-Length:\x0b3",
        "Content-Length: 3\x0c",
        "Content-Length: 3\xa0",
        "Transfer-Encoding: chunked\x0b",
        "Transfer-Encoding:\xa0chunked",
      ]
    ) {
      const result = await exchange(port, `POST / HTTP/1.1\r\nHost: t\r\n${field}\r\n\r\nabc`);
      assert.match(result.text, /^HTTP\/1\.1 (400|501) /, JSON.stringify(field));
      assert.ok(result.closedByServer);
    }
    // A tab after a framing value is refused, as llhttp refuses it.
    for (const field of ["Content-Length: 3\t", "Transfer-Encoding: chunked\t"]) {
      const result = await exchange(port, `POST / HTTP/1.1\r\nHost: t\r\n${field}\r\n\r\nabc`);
      assert.match(result.text, /^HTTP\/1\.1 400 /, JSON.stringify(field));
    }
    assert.deepEqual(seen, []);
    // Spaces and tabs before a value, and spaces after it, are optional whitespace.
    const ok = await exchange(
      port,
      "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: \t3  \r\nX-A:\ta\t\r\nConnection: close\r\n\r\nabc",
    );
    assert.match(ok.text, /^HTTP\/1\.1 200 /);
  });
});

Deno.test("framing: a bare CR or a bare LF in the head is refused at once, never waited on", async () => {
  await withRecorder({ headerTimeoutMs: 10_000 }, async (port, seen) => {
    for (
      const head of [
        "GET / HTTP/1.1\nHost: t\n\n",
        "GET / HTTP/1.1\r\nHost: t\n\r\n",
        "GET / HTTP/1.1\r\nHost: t\r\n\r\r\n",
        "GET / HTTP/1.1\r\nHost: t\rX: y\r\n\r\n",
      ]
    ) {
      const result = await exchange(port, head);
      assert.match(result.text, /^HTTP\/1\.1 400 /, JSON.stringify(head));
      assert.ok(result.ms < 2000, `answered after ${result.ms} ms`);
    }
    // In a chunked body's lines too.
    const chunk = await exchange(
      port,
      "POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n",
    );
    assert.match(chunk.text, /^HTTP\/1\.1 400 /);
    assert.ok(chunk.ms < 2000, `answered after ${chunk.ms} ms`);
    assert.deepEqual(seen, ["POST /"]);
  });
});

Deno.test("framing: chunk extensions and trailer fields follow their grammar", async () => {
  await withRecorder({}, async (port) => {
    const body = (chunks: string) =>
      `POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunks}`;
    for (
      const good of [
        "3;name\r\nabc\r\n0\r\n\r\n",
        '3;a=b;c="quoted \\" \\\\ value"\r\nabc\r\n0\r\n\r\n',
        "3\r\nabc\r\n0;last=1\r\nX-Sum: 1\r\nY:\t2\r\n\r\n",
      ]
    ) {
      const result = await exchange(port, body(good));
      assert.match(result.text, /^HTTP\/1\.1 200 /, JSON.stringify(good));
    }
    for (
      const bad of [
        "3;\r\nabc\r\n0\r\n\r\n", // empty extension name
        "3;a=\x01\r\nabc\r\n0\r\n\r\n",
        '3;a="open\r\nabc\r\n0\r\n\r\n',
        "3;a b\r\nabc\r\n0\r\n\r\n",
        "3 junk\r\nabc\r\n0\r\n\r\n",
        "3x\r\nabc\r\n0\r\n\r\n",
        "0x3\r\nabc\r\n0\r\n\r\n",
        "-3\r\nabc\r\n0\r\n\r\n",
        "fffffffffffffffff\r\nabc\r\n0\r\n\r\n",
        "3\r\nabc\r\n0\r\nnot a field\r\n\r\n",
        "3\r\nabc\r\n0\r\nX: \x00\r\n\r\n",
        "3\r\nabc\r\n0\r\n folded: 1\r\n\r\n",
        "3\r\nabc\r\n0\r\nContent-Length: 3\r\n\r\n", // framing fields never trail
        "3\r\nabc\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n",
        `3;${"a".repeat(5000)}\r\nabc\r\n0\r\n\r\n`, // a chunk line past 4 KiB
      ]
    ) {
      const result = await exchange(port, body(bad));
      assert.match(result.text, /^HTTP\/1\.1 400 /, JSON.stringify(bad));
      assert.ok(result.closedByServer);
    }
  });
});

Deno.test("framing: the head is ISO-8859-1 byte for byte: raw bytes in the target refused, obs-text values kept", async () => {
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0 },
    testLimits(),
    (request) => Response.json([...request.headers.get("x-raw") ?? ""].map((c) => c.charCodeAt(0))),
  );
  try {
    const port = server.addr.port;
    for (const target of ["/\x80", "/caf\xe9", "/\xff"]) {
      const result = await exchange(port, `GET ${target} HTTP/1.1\r\nHost: t\r\n\r\n`);
      assert.match(result.text, /^HTTP\/1\.1 400 /, JSON.stringify(target));
    }
    const kept = await exchange(
      port,
      "GET / HTTP/1.1\r\nHost: t\r\nX-Raw: \x80\x9f\xa0\xe9\xff\r\nConnection: close\r\n\r\n",
    );
    assert.match(kept.text, /^HTTP\/1\.1 200 /);
    assert.match(kept.text, /\[128,159,160,233,255\]$/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("framing: a Host that is not a valid host with an optional port is a 400", async () => {
  await withRecorder({}, async (port, seen) => {
    for (
      const host of ["exa mple", "a/b", "user@a", "[::1", "a:99999", "a:1:2", "a:x", "", "a,b"]
    ) {
      const result = await exchange(port, `GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      assert.match(result.text, /^HTTP\/1\.1 400 /, JSON.stringify(host));
    }
    assert.deepEqual(seen, []);
    for (const host of ["example.com", "example.com:8080", "127.0.0.1:1", "[::1]:80", "a_b"]) {
      const result = await exchange(
        port,
        `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.match(result.text, /^HTTP\/1\.1 200 /, host);
    }
  });
});

Deno.test("framing: a head with more than 100 fields is a 431", async () => {
  await withRecorder({ maxHeadBytes: 64 * 1024 }, async (port, seen) => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `X-${i}: ${i}\r\n`).join("");
    const many = await exchange(port, `GET / HTTP/1.1\r\nHost: t\r\n${fields(100)}\r\n`);
    assert.match(many.text, /^HTTP\/1\.1 431 /);
    assert.match(many.text, /"code":"headers_too_large"/);
    const enough = await exchange(
      port,
      `GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n${fields(98)}\r\n`,
    );
    assert.match(enough.text, /^HTTP\/1\.1 200 /);
    assert.equal(seen.length, 1);
  });
});

Deno.test("framing: no chunked coding to an HTTP/1.0 client; HEAD carries the GET's length or none", async () => {
  await withRecorder({}, async (port) => {
    const old = await exchange(port, "GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    const [head, ...rest] = old.text.split("\r\n\r\n");
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.doesNotMatch(head, /transfer-encoding/i);
    assert.match(head, /connection: close/);
    assert.equal(rest.join("\r\n\r\n").length, 500_000, "delimited by the close");
    assert.ok(old.closedByServer);
  });
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0 },
    testLimits(),
    (request) =>
      new URL(request.url).pathname === "/declared"
        ? new Response("twelve bytes", { headers: { "content-length": "12" } })
        : new Response(new ReadableStream({ start: (c) => (c.enqueue(latin1("x")), c.close()) })),
  );
  try {
    const port = server.addr.port;
    const declared = await exchange(
      port,
      "HEAD /declared HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    assert.match(declared.text, /content-length: 12\r\n/);
    assert.ok(declared.text.endsWith("\r\n\r\n"), "no body");
    const unknown = await exchange(
      port,
      "HEAD /stream HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    assert.doesNotMatch(unknown.text, /content-length/i);
    assert.doesNotMatch(unknown.text, /transfer-encoding/i);
  } finally {
    await server.shutdown();
  }
});

Deno.test("framing: the timeout regime follows the route served, not the raw target", async () => {
  await withRecorder({ requestTimeoutMs: 600 }, async (port) => {
    // "/stream/../slow" is served as /slow: an API request, under the deadline.
    const escaped = await exchange(port, "GET /stream/../slow?ms=3000 HTTP/1.1\r\nHost: t\r\n\r\n");
    assert.equal(escaped.text, "");
    assert.ok(escaped.closedByServer && escaped.ms < 2000, `cut after ${escaped.ms} ms`);
  });
});

Deno.test("framing: the throughput floor counts body bytes, not chunk-extension padding", async () => {
  await withRecorder(
    { requestTimeoutMs: 60_000, bodyIdleTimeoutMs: 60_000, maxHeadBytes: 64 * 1024 },
    async (port) => {
      const conn = await connect(port);
      await send(conn, "PUT /stream HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
      // 4 KB of framing a chunk, one byte of body: far above the floor on the wire, far below
      // it in body bytes.
      const padded = `1;pad=${"a".repeat(4000)}\r\nx\r\n`;
      const feeding = (async () => {
        try {
          for (let i = 0; i < 100; i++) {
            await send(conn, padded);
            await sleep(50);
          }
        } catch { /* cut */ }
      })();
      const result = await readUntilClosed(conn, 8000);
      await feeding;
      assert.ok(result.closedByServer && result.ms < 4000, `cut after ${result.ms} ms`);
    },
  );
});
