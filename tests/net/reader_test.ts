import assert from "node:assert/strict";
import { ConnReader, HeadTooLarge, UnexpectedEof } from "../../src/net/reader.ts";
import { RequestBody } from "../../src/net/request_body.ts";
import { BadRequest } from "../../src/net/request_head.ts";

/** A source handing out `pieces` one read at a time. */
function source(pieces: string[]) {
  const queue = pieces.map((p) => new TextEncoder().encode(p));
  let reads = 0;
  return {
    get reads() {
      return reads;
    },
    read(into: Uint8Array): Promise<number | null> {
      reads++;
      const next = queue.shift();
      if (!next) return Promise.resolve(null);
      const n = Math.min(into.length, next.length);
      into.set(next.subarray(0, n));
      if (n < next.length) queue.unshift(next.subarray(n));
      return Promise.resolve(n);
    },
  };
}

Deno.test("ConnReader: heads dribbled a byte at a time, pipelined heads, blank lines skipped", async () => {
  const text = "\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n";
  const reader = new ConnReader(source([...text.slice(0, 20)].concat(text.slice(20))));
  assert.equal(await reader.readHead(1024), "GET /a HTTP/1.1\r\nHost: x");
  assert.equal(reader.takeHead(1024), "GET /b HTTP/1.1\r\nHost: x", "already buffered");
  assert.equal(await reader.readHead(1024), null, "clean end");
});

Deno.test("ConnReader: a head past the limit, a cut head, lines and body bytes", async () => {
  const big = new ConnReader(source(["GET / HTTP/1.1\r\n", "X: " + "a".repeat(5000)]));
  await assert.rejects(() => big.readHead(1024), HeadTooLarge);
  const cut = new ConnReader(source(["GET / HTTP/1.1\r\nHo"]));
  await assert.rejects(() => cut.readHead(1024), UnexpectedEof);
  const mixed = new ConnReader(source(["5\r\nhel", "lo\r\n"]));
  assert.equal(await mixed.readLine(100), "5");
  const into = new Uint8Array(5);
  let got = 0;
  while (got < 5) got += await mixed.readInto(into.subarray(got));
  assert.equal(new TextDecoder().decode(into), "hello");
  assert.equal(await mixed.readLine(100), "");
  await assert.rejects(() => mixed.readInto(new Uint8Array(4)), UnexpectedEof);
});

Deno.test("ConnReader: a head dribbled in 20,000 one-byte reads is read whole", async () => {
  const pieces = [..."GET / HTTP/1.1\r\nX: " + "a".repeat(20_000) + "\r\n\r\n"];
  const src = source(pieces);
  const head = await new ConnReader(src).readHead(64 * 1024);
  assert.equal(head?.length, 20_000 + 19);
  assert.equal(src.reads, pieces.length);
});

Deno.test("RequestBody: chunked with extensions and trailers; an endless trailer section is refused", async () => {
  const read = async (text: string) => {
    const body = new RequestBody(new ConnReader(source([text])), { kind: "chunked" });
    const into = new Uint8Array(64);
    let out = "";
    for (let n = await body.readInto(into); n !== null; n = await body.readInto(into)) {
      out += new TextDecoder().decode(into.subarray(0, n));
    }
    return out;
  };
  assert.equal(await read("3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n"), "abcde");
  const endless = "0\r\n" + "X-T: 1234567890\r\n".repeat(2000) + "\r\n";
  await assert.rejects(() => read(endless), BadRequest);
  await assert.rejects(() => read("zz\r\n"), BadRequest);
  await assert.rejects(() => read("3\r\nabcX\r\n0\r\n\r\n"), BadRequest);
});
