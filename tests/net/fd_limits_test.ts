/**
 * Running out of file descriptors, over real TCP: 2,000 idle connections against the real
 * server under `ulimit -n 1024` are cut while it keeps answering, and the accept loop itself
 * survives EMFILE.
 */
import assert from "node:assert/strict";
import { freePort, waitFor } from "../_support/process.ts";
import { connect, sleep } from "./_raw.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const FIXTURE = new URL("./_emfile_server.ts", import.meta.url).pathname;

/** `deno run -A <args>` under `ulimit -n <fds>`. */
function spawnLimited(fds: number, args: string[], env: Record<string, string> = {}) {
  const command = `ulimit -n ${fds} && exec "${Deno.execPath()}" run -A ${
    args.map((a) => `"${a}"`).join(" ")
  }`;
  return new Deno.Command("bash", {
    args: ["-c", command],
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Opens `count` connections, `batch` at a time. */
async function openMany(port: number, count: number, batch = 100): Promise<Deno.TcpConn[]> {
  const conns: Deno.TcpConn[] = [];
  for (let i = 0; i < count; i += batch) {
    conns.push(
      ...await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => connect(port))),
    );
  }
  return conns;
}

/** Resolves true once the server has closed `conn` (EOF or reset), false after `ms`. */
async function closedWithin(conn: Deno.TcpConn, ms: number): Promise<boolean> {
  const timer = setTimeout(() => conn.close(), ms);
  try {
    const n = await conn.read(new Uint8Array(16));
    return n === null;
  } catch (err) {
    return !(err instanceof Deno.errors.BadResource || err instanceof Deno.errors.Interrupted);
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  }
}

Deno.test({
  name: "2,000 idle connections under ulimit -n 1024: all cut, the server keeps answering",
  sanitizeResources: false,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "sealpost-fd-" });
    const port = freePort();
    const child = spawnLimited(1024, [MAIN, "serve", "--data", dir, "--port", String(port)], {
      SEALPOST_SERVER_REQUEST_LOG: "false",
      SEALPOST_SERVER_HEADER_TIMEOUT_SECONDS: "2",
      SEALPOST_SERVER_MAX_CONNECTIONS_PER_ADDRESS: "100000",
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitFor(`${url}/healthz`);
      const idle = await openMany(port, 2000);
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${url}/healthz`);
        assert.equal(res.status, 200);
        await res.body?.cancel();
      }
      const closed = await Promise.all(idle.map((conn) => closedWithin(conn, 8000)));
      assert.equal(closed.filter((c) => !c).length, 0, "every idle connection is cut");
      const after = await fetch(`${url}/healthz`);
      assert.equal((await after.json()).status, "ok");
    } finally {
      child.kill("SIGTERM");
      const status = await child.status;
      const stderr = new TextDecoder().decode(
        (await child.stderr.getReader().read()).value ?? new Uint8Array(),
      );
      await child.stdout.cancel();
      assert.equal(status.code, 0, stderr);
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "accept survives EMFILE: the process stays up and serves once descriptors free",
  sanitizeResources: false,
  fn: async () => {
    const child = spawnLimited(96, [FIXTURE]);
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const port = Number((await reader.read()).value!.trim());
    try {
      // Far more connections than descriptors: accept fails with EMFILE for a while.
      const conns = await openMany(port, 300, 50).catch(() => [] as Deno.TcpConn[]);
      await sleep(500);
      conns.forEach((c) => c.close());
      // It still answers (the shed and timed-out connections freed their descriptors).
      let answered = false;
      for (let i = 0; i < 50 && !answered; i++) {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/`);
          answered = res.status === 200 && (await res.text()) === "ok";
        } catch {
          await sleep(100);
        }
      }
      assert.ok(answered, "answers after running out of descriptors");
    } finally {
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel();
      const log = new TextDecoder().decode(
        (await new Response(child.stderr).arrayBuffer()) as ArrayBuffer,
      );
      assert.match(log, /accept failed; retrying.*Too many open files/);
    }
  },
});
