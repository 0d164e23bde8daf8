/**
 * The `[server]` connection limits reach the real server: a slowloris head and a stalled body
 * are cut per the configured timeouts while the service keeps answering.
 */
import assert from "node:assert/strict";
import { startInstance } from "../_support/server.ts";
import { connect, readUntilClosed, send, sleep } from "./_raw.ts";

Deno.test("real server: slowloris head and stalled body are cut; the service keeps answering", async () => {
  const inst = await startInstance({
    SEALPOST_SERVER_HEADER_TIMEOUT_SECONDS: "1",
    SEALPOST_SERVER_BODY_IDLE_TIMEOUT_SECONDS: "1",
  });
  try {
    const port = inst.server.port;
    const dribble = await connect(port);
    const dribbling = (async () => {
      try {
        for (const byte of "POST /submissions HTTP/1.1\r\nHost: t\r\nX-Slow: yes") {
          await send(dribble, byte);
          await sleep(150);
        }
      } catch { /* cut */ }
    })();
    const stalled = await connect(port);
    await send(
      stalled,
      "POST /submissions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" +
        "Content-Length: 1000\r\n\r\n{",
    );
    const [cutHead, cutBody] = await Promise.all([
      readUntilClosed(dribble, 10_000),
      readUntilClosed(stalled, 10_000),
    ]);
    await dribbling;
    assert.ok(cutHead.closedByServer && cutHead.ms < 3000, `head cut after ${cutHead.ms} ms`);
    assert.ok(cutBody.closedByServer && cutBody.ms < 3000, `body cut after ${cutBody.ms} ms`);
    const health = await fetch(`${inst.url}/healthz`);
    assert.equal((await health.json()).status, "ok");
  } finally {
    await inst.close();
  }
});
