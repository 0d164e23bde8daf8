/**
 * The serving layer (src/net) over real TCP: HTTP/1.1 semantics the app relies on, and each
 * timeout and cap cutting what it should while the server keeps answering.
 */
import assert from "node:assert/strict";
import { serveHttp } from "../../src/net/listener.ts";
import { echo, withServer } from "./_echo.ts";
import { connect, readResponse, readUntilClosed, send, sleep, testLimits } from "./_raw.ts";

Deno.test("serveHttp: fetch, keep-alive reuse, POST bodies, HEAD, large streamed responses", async () => {
  await withServer({}, async (_server, port) => {
    const base = `http://127.0.0.1:${port}`;
    const got = await (await fetch(`${base}/a?x=1`)).json();
    assert.deepEqual(got, {
      method: "GET",
      path: "/a",
      host: `127.0.0.1:${port}`,
      bytes: 0,
      peer: "127.0.0.1",
    });
    const posted =
      await (await fetch(`${base}/p`, { method: "POST", body: new Uint8Array(300_000) })).json();
    assert.equal(posted.bytes, 300_000);
    const head = await fetch(`${base}/a`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    const big = await fetch(`${base}/big`);
    assert.equal((await big.arrayBuffer()).byteLength, 500_000);
    // Two requests on one connection.
    const conn = await connect(port);
    for (let i = 0; i < 2; i++) {
      await send(conn, "GET /k HTTP/1.1\r\nHost: t\r\n\r\n");
      const { head: h, body } = await readResponse(conn);
      assert.match(h, /^HTTP\/1\.1 200 OK\r\n/);
      assert.match(h, /connection: keep-alive/);
      assert.equal(JSON.parse(body).path, "/k");
    }
    conn.close();
  });
});

Deno.test("serveHttp: pipelined requests, chunked bodies and 100-continue", async () => {
  await withServer({}, async (_server, port) => {
    const conn = await connect(port);
    await send(
      conn,
      "POST /one HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n" +
        "GET /two HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
    );
    const { text, closedByServer } = await readUntilClosed(conn);
    assert.ok(closedByServer);
    assert.equal(text.match(/HTTP\/1\.1 200/g)?.length, 2);
    assert.match(text, /"path":"\/one","host":"t","bytes":8/);
    assert.match(text, /"path":"\/two"/);

    const waiting = await connect(port);
    await send(
      waiting,
      "PUT /c HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n",
    );
    const buf = new Uint8Array(100);
    const n = await waiting.read(buf);
    assert.equal(new TextDecoder().decode(buf.subarray(0, n!)), "HTTP/1.1 100 Continue\r\n\r\n");
    await send(waiting, "abcd");
    assert.equal(JSON.parse((await readResponse(waiting)).body).bytes, 4);
    waiting.close();
  });
});

Deno.test("serveHttp: malformed and smuggling-prone requests get a 4xx in the error shape and a close", async () => {
  await withServer({}, async (_server, port) => {
    const cases: [string, RegExp][] = [
      ["GARBAGE\r\n\r\n", /^HTTP\/1\.1 400 /],
      ["GET / HTTP/1.1\r\n\r\n", /^HTTP\/1\.1 400 /], // no Host
      ["GET / HTTP/2.0\r\nHost: t\r\n\r\n", /^HTTP\/1\.1 505 /],
      [
        "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        /^HTTP\/1\.1 400 /,
      ],
      [
        "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
        /^HTTP\/1\.1 400 /,
      ],
      ["POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", /^HTTP\/1\.1 501 /],
      [`GET / HTTP/1.1\r\nHost: t\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, /^HTTP\/1\.1 431 /],
    ];
    for (const [request, status] of cases) {
      const conn = await connect(port);
      await send(conn, request);
      const { text, closedByServer } = await readUntilClosed(conn);
      assert.match(text, status, request.slice(0, 60));
      assert.match(text, /\{"error":\{"code":"[a-z_]+","message":"[^"]+"\}\}$/);
      assert.ok(closedByServer);
    }
    assert.equal((await fetch(`http://127.0.0.1:${port}/ok`)).status, 200);
  });
});

Deno.test("serveHttp: an idle connection and a dribbled head (slowloris) are cut at the header timeout", async () => {
  await withServer({ headerTimeoutMs: 800 }, async (_server, port) => {
    const idle = await connect(port);
    const idleResult = readUntilClosed(idle);
    const dribble = await connect(port);
    const dribbling = (async () => {
      try {
        for (const byte of "GET / HTTP/1.1\r\nHost: t\r\nX-Slow: 1") {
          await send(dribble, byte);
          await sleep(100);
        }
      } catch { /* cut */ }
    })();
    const dribbleResult = await readUntilClosed(dribble);
    await dribbling;
    for (const result of [await idleResult, dribbleResult]) {
      assert.ok(result.closedByServer);
      assert.ok(result.ms < 3000, `cut after ${result.ms} ms`);
      assert.equal(result.text, "");
    }
    assert.equal((await fetch(`http://127.0.0.1:${port}/ok`)).status, 200);
  });
});

Deno.test("serveHttp: a kept-alive connection is closed after the keep-alive timeout", async () => {
  await withServer({ keepAliveTimeoutMs: 500, headerTimeoutMs: 5000 }, async (_server, port) => {
    const conn = await connect(port);
    await send(conn, "GET /k HTTP/1.1\r\nHost: t\r\n\r\n");
    await readResponse(conn);
    const { closedByServer, ms } = await readUntilClosed(conn);
    assert.ok(closedByServer);
    assert.ok(ms < 2500, `cut after ${ms} ms`);
  });
});

Deno.test("serveHttp: a stalled request body is cut at the body idle timeout", async () => {
  await withServer({ bodyIdleTimeoutMs: 500 }, async (_server, port) => {
    const conn = await connect(port);
    await send(conn, "POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc");
    const { closedByServer, ms } = await readUntilClosed(conn);
    assert.ok(closedByServer);
    assert.ok(ms < 2500, `cut after ${ms} ms`);
  });
});

Deno.test("serveHttp: an API request past its deadline is cut; streaming routes follow throughput instead", async () => {
  await withServer({ requestTimeoutMs: 600, bodyIdleTimeoutMs: 5000 }, async (_server, port) => {
    // Trickling a body byte by byte stays under the idle timeout but not under the deadline.
    const conn = await connect(port);
    await send(conn, "POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n");
    const trickle = (async () => {
      try {
        for (let i = 0; i < 30; i++) {
          await send(conn, "a");
          await sleep(100);
        }
      } catch { /* cut */ }
    })();
    const { closedByServer, ms } = await readUntilClosed(conn);
    await trickle;
    assert.ok(closedByServer);
    assert.ok(ms < 2500, `cut after ${ms} ms`);
    // The same trickle on a streaming route: below 1024 B/s over a 1 s window is cut too,
    // while a steady upload longer than the API deadline passes.
    const slow = await connect(port);
    await send(slow, "PUT /stream HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n");
    const slowTrickle = (async () => {
      try {
        for (let i = 0; i < 30; i++) {
          await send(slow, "a");
          await sleep(100);
        }
      } catch { /* cut */ }
    })();
    const slowResult = await readUntilClosed(slow);
    await slowTrickle;
    assert.ok(slowResult.closedByServer && slowResult.ms < 3500, `cut after ${slowResult.ms} ms`);
    // (A body past 64 KiB: smaller ones are read before routing, under the deadline.)
    const steady = await connect(port);
    await send(
      steady,
      "PUT /stream HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n",
    );
    for (let i = 0; i < 10; i++) {
      await send(steady, new Uint8Array(10_000));
      await sleep(120);
    }
    const { text } = await readUntilClosed(steady);
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /"bytes":100000/);
  });
});

Deno.test("serveHttp: per-address cap refuses extra connections; total cap sheds the oldest idle one", async () => {
  await withServer(
    { maxConnectionsPerAddress: 3, headerTimeoutMs: 10_000 },
    async (server, port) => {
      const held = await Promise.all([1, 2, 3].map(() => connect(port)));
      await sleep(100);
      assert.equal(server.connections, 3);
      const extra = await connect(port);
      assert.ok(
        (await readUntilClosed(extra, 3000)).closedByServer,
        "fourth from one address closed",
      );
      held.forEach((c) => c.close());
    },
  );
  // A trusted proxy carries many clients: exempt from the per-address cap.
  await withServer(
    { maxConnectionsPerAddress: 2, headerTimeoutMs: 10_000, isExempt: (a) => a === "127.0.0.1" },
    async (server, port) => {
      const held = await Promise.all([1, 2, 3, 4].map(() => connect(port)));
      await sleep(100);
      assert.equal(server.connections, 4);
      held.forEach((c) => c.close());
    },
  );
  await withServer({ maxConnections: 4, headerTimeoutMs: 10_000 }, async (server, port) => {
    const idle = await Promise.all([1, 2, 3, 4].map(() => connect(port)));
    await sleep(100);
    assert.equal(server.connections, 4);
    // A fifth client is served: the oldest idle connection makes room.
    assert.equal((await fetch(`http://127.0.0.1:${port}/ok`)).status, 200);
    assert.ok((await readUntilClosed(idle[0], 3000)).closedByServer, "oldest idle shed");
    assert.ok(server.connections <= 4);
    idle.forEach((c) => {
      try {
        c.close();
      } catch { /* closed */ }
    });
  });
});

Deno.test("serveHttp: shutdown lets the request in progress finish and closes idle connections", async () => {
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0 },
    testLimits({ headerTimeoutMs: 10_000 }),
    echo,
    () => {},
  );
  const port = server.addr.port;
  const idle = await connect(port);
  await sleep(50);
  const slow = fetch(`http://127.0.0.1:${port}/slow?ms=300`);
  await sleep(50);
  const stopping = server.shutdown();
  assert.equal((await slow).status, 200);
  assert.ok((await readUntilClosed(idle, 3000)).closedByServer);
  await stopping;
  await server.finished;
  await assert.rejects(() => fetch(`http://127.0.0.1:${port}/ok`));
});
