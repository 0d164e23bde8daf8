import assert from "node:assert/strict";
import { writeResponse } from "../../src/net/response_writer.ts";

/** What writeResponse sends for `response`, as bytes. */
async function sent(response: Response, headOnly = false): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  await writeResponse(
    {
      write: (bytes) => {
        chunks.push(bytes.slice());
        return Promise.resolve(bytes.byteLength);
      },
    },
    response,
    { headOnly, keepAlive: true },
  );
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("writeResponse: JSON with its byte length (non-ASCII too), in one message", async () => {
  const ascii = text(await sent(Response.json({ a: 1 })));
  assert.match(ascii, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(ascii, /content-length: 7\r\n/);
  assert.match(ascii, /connection: keep-alive\r\n\r\n\{"a":1\}$/);
  const accented = text(await sent(Response.json({ name: "Zoë" })));
  assert.match(accented, /content-length: 15\r\n/, "ë is two bytes");
  assert.ok(accented.endsWith('{"name":"Zoë"}'));
});

Deno.test("writeResponse: Latin-1 header values are sent as single bytes", async () => {
  const bytes = await sent(new Response("x", { headers: { "x-name": "caf\u00e9" } }));
  const at = bytes.findIndex((_, i) => text(bytes.subarray(i, i + 7)) === "x-name:");
  assert.deepEqual([...bytes.subarray(at + 8, at + 12)], [0x63, 0x61, 0x66, 0xe9]);
});

Deno.test("writeResponse: declared length, unknown length (chunked), HEAD and 204", async () => {
  const declared = text(
    await sent(new Response("hello", { headers: { "content-length": "5" } })),
  );
  assert.match(declared, /content-length: 5\r\n[^]*\r\n\r\nhello$/);
  const big = new Uint8Array(100_000).fill(97);
  const stream = new ReadableStream({
    start(controller) {
      controller.enqueue(big);
      controller.enqueue(big);
      controller.close();
    },
  });
  const chunked = text(await sent(new Response(stream)));
  assert.match(chunked, /transfer-encoding: chunked\r\n/);
  assert.ok(chunked.endsWith("\r\n0\r\n\r\n"));
  const small = text(await sent(new Response("tiny")));
  assert.match(small, /content-length: 4\r\n[^]*tiny$/, "small unknown-length bodies get a length");
  const head = text(
    await sent(new Response("body", { headers: { "content-length": "4" } }), true),
  );
  assert.match(head, /content-length: 4\r\n/);
  assert.ok(head.endsWith("\r\n\r\n"), "no body after a HEAD answer");
  const empty = text(await sent(new Response(null, { status: 204 })));
  assert.match(empty, /^HTTP\/1\.1 204 No Content\r\n/);
  assert.doesNotMatch(empty, /content-length/);
});
