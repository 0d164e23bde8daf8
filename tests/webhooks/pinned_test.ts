/**
 * `https:` to a checked address over real TLS: the certificate is checked against the URL's
 * name (or its IP literal) with the roots Deno trusts, `DENO_CERT` included; the response is
 * framed by `node:http` (Content-Length, chunked, until close, interim 1xx skipped, redirects
 * not followed, a 64 KiB head at most) and streams; a timeout in the head or in the body
 * rejects with the signal's reason, and a cancelled body closes the connection.
 */
import assert from "node:assert/strict";
import { issue, makeCa } from "../_support/certificates.ts";
import { fetchPinned, type PinnedRequest } from "../../src/webhooks/pinned.ts";

/** A certificate and its key, as a TLS server takes them. */
type Leaf = { cert: string; key: string };

/** A CA, and its certificates for the name hooks.test and for the address 127.0.0.1. */
const ca = await (async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-pinned-" });
  try {
    const root = await makeCa(dir, "pinned-ca");
    const leaf = async (name: string, names: string[]): Promise<Leaf> => {
      const { cert, key } = await issue(dir, root, name, names);
      return { cert, key };
    };
    return {
      root: root.cert,
      named: await leaf("named", ["hooks.test"]),
      byIp: await leaf("by-ip", ["127.0.0.1"]),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
})();

const encode = (text: string) => new TextEncoder().encode(text);

/** A TLS server on 127.0.0.1 that reads a request head and lets `answer` write the reply. */
function tlsServer(
  leaf: Leaf,
  answer: (conn: Deno.Conn, head: string) => Promise<void>,
) {
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, ...leaf });
  const heads: string[] = [];
  const handling = new Set<Promise<void>>();
  const serving = (async () => {
    for await (const conn of listener) {
      const one = (async () => {
        try {
          let head = "";
          const buffer = new Uint8Array(16 * 1024);
          while (!head.includes("\r\n\r\n")) {
            const n = await conn.read(buffer);
            if (n === null) return;
            head += new TextDecoder().decode(buffer.subarray(0, n));
          }
          heads.push(head);
          await answer(conn, head);
        } catch {
          /* the client went away */
        } finally {
          try {
            conn.close();
          } catch { /* closed */ }
        }
      })();
      handling.add(one);
      one.finally(() => handling.delete(one));
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    heads,
    async close() {
      listener.close();
      await serving;
      await Promise.all(handling);
    },
  };
}

/** `text`, written in full. */
async function write(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = encode(text);
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

const post = (signal = AbortSignal.timeout(5000)): PinnedRequest => ({
  method: "POST",
  headers: [["Content-Type", "text/plain"]],
  body: encode("sealed"),
  signal,
  caCerts: [ca.root],
});

Deno.test("pinned https: each framing of the response is read, interim answers skipped", async () => {
  const replies: Record<string, string> = {
    "/length": "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
    "/chunked": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
    "/close": "HTTP/1.1 200 OK\r\n\r\nuntil the end",
    "/empty": "HTTP/1.1 204 No Content\r\nRetry-After: 3\r\n\r\n",
    "/redirect":
      "HTTP/1.1 302 Found\r\nLocation: https://elsewhere.test/\r\nContent-Length: 0\r\n\r\n",
    "/cookies":
      "HTTP/1.1 503 Busy\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 2\r\n\r\nno",
  };
  const server = tlsServer(ca.named, (conn, head) => write(conn, replies[head.split(" ")[1]]));
  try {
    const got = async (path: string) => {
      const url = new URL(`https://hooks.test:${server.port}${path}`);
      const response = await fetchPinned(url, "127.0.0.1", post());
      return [response.status, await response.text(), response.headers];
    };
    assert.deepEqual((await got("/length")).slice(0, 2), [200, "hello"]);
    assert.deepEqual((await got("/chunked")).slice(0, 2), [200, "hello world"]);
    assert.deepEqual((await got("/close")).slice(0, 2), [200, "until the end"]);
    const [status, text, headers] = await got("/empty");
    assert.deepEqual([status, text, (headers as Headers).get("retry-after")], [204, "", "3"]);
    const [moved, , at] = await got("/redirect");
    assert.deepEqual([moved, (at as Headers).get("location")], [302, "https://elsewhere.test/"]);
    const [busy, no, cookies] = await got("/cookies");
    assert.deepEqual([busy, no, (cookies as Headers).getSetCookie()], [503, "no", ["a=1", "b=2"]]);
    assert.equal(server.heads.length, 6, "one request each, the redirect not followed");
    const head = server.heads[0].toLowerCase();
    assert.match(head, /^post \/length http\/1\.1\r\n/);
    assert.match(head, new RegExp(`\r\nhost: hooks\\.test:${server.port}\r\n`));
    assert.match(head, /\r\nconnection: close\r\n/);
    assert.match(head, /\r\ncontent-length: 6\r\n/);
  } finally {
    await server.close();
  }
});

Deno.test("pinned https: a response head over 64 KiB is refused", async () => {
  const server = tlsServer(ca.named, (conn, head) => {
    const size = head.startsWith("POST /small") ? 20_000 : 70_000;
    return write(
      conn,
      `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(size)}\r\nContent-Length: 2\r\n\r\nok`,
    );
  });
  try {
    const small = await fetchPinned(
      new URL(`https://hooks.test:${server.port}/small`),
      "127.0.0.1",
      post(),
    );
    assert.equal(await small.text(), "ok");
    await assert.rejects(
      () => fetchPinned(new URL(`https://hooks.test:${server.port}/big`), "127.0.0.1", post()),
      /Header overflow/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("pinned https: the body streams, and cancelling it closes the connection", async () => {
  const { promise: firstRead, resolve: readFirst } = Promise.withResolvers<void>();
  const { promise: closed, resolve: sawClose } = Promise.withResolvers<boolean>();
  const server = tlsServer(ca.named, async (conn) => {
    await write(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n");
    await firstRead;
    await write(conn, "6\r\nsecond\r\n");
    // The client cancels: the connection ends (no more bytes, or a reset).
    sawClose(await conn.read(new Uint8Array(1)).then((n) => n === null, () => true));
  });
  try {
    const url = new URL(`https://hooks.test:${server.port}/s`);
    const response = await fetchPinned(url, "127.0.0.1", post());
    const reader = response.body!.getReader();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "first");
    readFirst();
    assert.equal(new TextDecoder().decode((await reader.read()).value), "second");
    await reader.cancel();
    assert.ok(await closed);
  } finally {
    await server.close();
  }
});

Deno.test("pinned https: a timeout in the head or in the body rejects with the signal's reason", async () => {
  const server = tlsServer(ca.named, async (conn, head) => {
    if (head.startsWith("POST /body")) {
      await write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc");
    }
    await conn.read(new Uint8Array(1)).catch(() => {}); // until the client gives up
  });
  try {
    const head = fetchPinned(
      new URL(`https://hooks.test:${server.port}/head`),
      "127.0.0.1",
      post(AbortSignal.timeout(300)),
    );
    await assert.rejects(head, { name: "TimeoutError" });
    const response = await fetchPinned(
      new URL(`https://hooks.test:${server.port}/body`),
      "127.0.0.1",
      post(AbortSignal.timeout(300)),
    );
    await assert.rejects(() => response.text(), { name: "TimeoutError" });
  } finally {
    await server.close();
  }
});

Deno.test("pinned https: an IP-literal URL checks the certificate against the IP", async () => {
  for (const [leaf, ok] of [[ca.byIp, true], [ca.named, false]] as const) {
    const server = tlsServer(
      leaf,
      (conn) => write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
    );
    try {
      const url = new URL(`https://127.0.0.1:${server.port}/ip`);
      if (ok) assert.equal(await (await fetchPinned(url, "127.0.0.1", post())).text(), "ok");
      else await assert.rejects(() => fetchPinned(url, "127.0.0.1", post()), /not valid for name/);
    } finally {
      await server.close();
    }
  }
});

Deno.test("pinned https: a CA from DENO_CERT is trusted, as by every other Deno connection", async () => {
  const server = tlsServer(
    ca.named,
    (conn) => write(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
  );
  const caFile = await Deno.makeTempFile({ suffix: ".pem" });
  try {
    await Deno.writeTextFile(caFile, ca.root);
    const pinned = new URL("../../src/webhooks/pinned.ts", import.meta.url).href;
    const script = `import { fetchPinned } from ${JSON.stringify(pinned)};
const url = new URL("https://hooks.test:${server.port}/ca");
const init = { method: "POST", headers: {}, body: null, signal: AbortSignal.timeout(5000) };
console.log(await (await fetchPinned(url, "127.0.0.1", init)).text());`;
    const run = (env: Record<string, string>) =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", script],
        env,
        stdout: "piped",
        stderr: "piped",
      })
        .output();
    const trusted = await run({ DENO_CERT: caFile });
    assert.equal(new TextDecoder().decode(trusted.stdout).trim(), "ok");
    const untrusted = await run({});
    assert.ok(!untrusted.success);
    assert.match(new TextDecoder().decode(untrusted.stderr), /UnknownIssuer/);
  } finally {
    await server.close();
    await Deno.remove(caFile);
  }
});
