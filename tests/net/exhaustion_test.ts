/**
 * A few addresses cannot exhaust the edge: slow bodies, huge heads and a deadline escape from
 * four loopback addresses, while a fifth address's `/healthz` answers within 1 s throughout.
 * (Loopback is 127.0.0.0/8: each client binds its own source address through node:net.)
 */
import assert from "node:assert/strict";
import net from "node:net";
import { serveHttp } from "../../src/net/listener.ts";
import { startInstance } from "../_support/server.ts";
import { echo } from "./_echo.ts";
import { sleep, testLimits } from "./_raw.ts";

const ATTACKERS = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];
const BYSTANDER = "127.0.0.6";

/** A raw connection from `localAddress`; resolves once connected. */
function open(port: number, localAddress: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port, localAddress }, () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Sends `text` from `localAddress` and resolves with what came back once the server closed. */
function ask(port: number, localAddress: string, text: string, limitMs = 5000): Promise<string> {
  return new Promise((resolve) => {
    let got = "";
    const socket = net.connect({ host: "127.0.0.1", port, localAddress }, () => socket.write(text));
    const timer = setTimeout(() => socket.destroy(), limitMs);
    socket.on("data", (chunk) => got += chunk.toString("latin1"));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}

/**
 * Asks for `/healthz` from the bystander's address every 100 ms until stopped; returns the
 * slowest answer and the number that failed or took 1 s or more.
 */
function watchHealth(port: number) {
  let stopped = false;
  const times: number[] = [];
  let failures = 0;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const answer = await ask(
        port,
        BYSTANDER,
        "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        2000,
      );
      const ms = performance.now() - started;
      times.push(ms);
      if (!/^HTTP\/1\.1 200 /.test(answer) || ms >= 1000) failures++;
      await sleep(100);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { slowest: Math.max(...times), asked: times.length, failures };
  };
}

Deno.test("exhaustion: 500 slow bodies from 4 addresses cannot hold every slot", async () => {
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0 },
    testLimits({
      maxConnections: 200,
      maxConnectionsPerAddress: 128,
      headerTimeoutMs: 30_000,
      bodyIdleTimeoutMs: 30_000,
      requestTimeoutMs: 30_000,
    }),
    echo,
  );
  const port = server.addr.port;
  const sockets: net.Socket[] = [];
  try {
    const stop = watchHealth(port);
    for (let i = 0; i < 500; i++) {
      const socket = await open(port, ATTACKERS[i % 4]).catch(() => null);
      if (!socket) continue;
      socket.on("error", () => {});
      // A head, then a body that never comes: the connection is busy, not idle.
      socket.write("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\nabc");
      sockets.push(socket);
      if (i % 50 === 0) await sleep(20);
    }
    await sleep(1000);
    const health = await stop();
    assert.equal(health.failures, 0, `slowest ${health.slowest} ms of ${health.asked}`);
    assert.ok(health.asked >= 5);
    assert.ok(server.connections <= 201, `${server.connections} open`);
  } finally {
    sockets.forEach((s) => s.destroy());
    await server.shutdown();
  }
});

Deno.test("exhaustion: heads of 8,000 fields from 4 addresses are refused with 431 in linear time", async () => {
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0 },
    testLimits({ maxHeadBytes: 64 * 1024 }),
    echo,
  );
  const port = server.addr.port;
  try {
    const stop = watchHealth(port);
    const fields = "a:b\r\n".repeat(8000);
    const head = `GET / HTTP/1.1\r\nHost: t\r\n${fields}\r\n`;
    const deadline = Date.now() + 3000;
    const answers: string[] = [];
    await Promise.all(ATTACKERS.flatMap((address) =>
      [0, 1, 2, 3].map(async () => {
        while (Date.now() < deadline) answers.push(await ask(port, address, head));
      })
    ));
    const health = await stop();
    assert.equal(health.failures, 0, `slowest ${health.slowest} ms of ${health.asked}`);
    assert.ok(answers.length >= 16);
    for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 431 /);
  } finally {
    await server.shutdown();
  }
});

Deno.test("exhaustion: /blobs/../submissions does not escape the request deadline", async () => {
  const instance = await startInstance({
    SEALPOST_SERVER_REQUEST_TIMEOUT_SECONDS: "1",
    SEALPOST_SERVER_MAX_CONNECTIONS_PER_ADDRESS: "128",
  });
  const port = instance.server.port;
  const sockets: net.Socket[] = [];
  try {
    const stop = watchHealth(port);
    // 2 KB/s: above the throughput floor (1 KiB/s), so only the deadline can cut it.
    const cut = await Promise.all(ATTACKERS.map(async (address) => {
      const socket = await open(port, address);
      sockets.push(socket);
      const started = performance.now();
      const closed = new Promise<number>((resolve) =>
        socket.on("close", () => resolve(performance.now() - started))
      );
      socket.on("error", () => {});
      socket.write(
        "POST /blobs/../submissions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" +
          "Content-Length: 10000000\r\n\r\n",
      );
      const feeding = (async () => {
        for (let i = 0; i < 40 && !socket.destroyed; i++) {
          socket.write("a".repeat(200));
          await sleep(100);
        }
      })();
      const ms = await Promise.race([closed, sleep(6000).then(() => Infinity)]);
      await feeding;
      return ms;
    }));
    const health = await stop();
    for (const ms of cut) assert.ok(ms < 3000, `cut after ${ms} ms`);
    assert.equal(health.failures, 0, `slowest ${health.slowest} ms of ${health.asked}`);
  } finally {
    sockets.forEach((s) => s.destroy());
    await instance.close();
  }
});
