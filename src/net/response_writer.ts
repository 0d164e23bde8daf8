/**
 * Writes a fetch `Response` as HTTP/1.1: a known length when the body is small or declares
 * one, chunked otherwise (to an HTTP/1.0 client, which knows no chunked coding: delimited by
 * closing the connection); the head and a small body leave in one write.
 *
 * What `Deno.serve` does with the handler's `Response`. Delete it when `Deno.serve` replaces
 * the owned server (see edge.ts); the redirect listener's error answers become plain
 * `Response`s then.
 *
 * @module
 */
import { concatBytes } from "../crypto/encoding.ts";

/** Where the bytes go: a `Deno.Conn`, or anything with its `write`. */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

/** Bodies up to this size are buffered to send a Content-Length. */
const SMALL_BODY = 64 * 1024;

const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

/** Headers this layer sets itself (framing and connection management). */
const HOP_BY_HOP = new Set(["connection", "transfer-encoding", "keep-alive", "content-length"]);

const encoder = new TextEncoder();
// deno-lint-ignore no-control-regex -- the complement of ASCII
const NON_ASCII = /[^\x00-\x7f]/;

let dateSecond = 0;
let dateText = "";

/** The current time as an HTTP date, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** A head's bytes: its text is Latin-1 (header values are byte strings), ASCII as a rule. */
function headBytes(text: string): Uint8Array {
  if (!NON_ASCII.test(text)) return encoder.encode(text);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Writes all of `bytes`. */
export async function writeAll(sink: ByteSink, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) offset += await sink.write(bytes.subarray(offset));
}

function headText(status: number, headers: Headers, framing: string, keepAlive: boolean): string {
  let text = `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\n`;
  for (const [name, value] of headers) {
    if (HOP_BY_HOP.has(name) || name === "set-cookie") continue;
    text += `${name}: ${value}\r\n`;
  }
  for (const cookie of headers.getSetCookie()) text += `set-cookie: ${cookie}\r\n`;
  if (!headers.has("date")) text += `date: ${httpDate()}\r\n`;
  return `${text}${framing}connection: ${keepAlive ? "keep-alive" : "close"}\r\n\r\n`;
}

/** How a response is written. */
export interface ResponseOptions {
  /** A HEAD request: the head alone, with the Content-Length its GET would carry, or none. */
  headOnly: boolean;
  /** Whether the connection may serve another request after this one. */
  keepAlive: boolean;
  /** The client speaks HTTP/1.0: no chunked coding; an unknown length ends with the connection. */
  http10?: boolean;
}

/**
 * Sends `response` to `sink`. Returns whether the connection may stay open: false when
 * `keepAlive` was false or the body had to be delimited by closing the connection.
 *
 * @example
 * ```ts
 * await writeResponse(conn, new Response("hi"), { headOnly: false, keepAlive: true });
 * ```
 */
export async function writeResponse(
  sink: ByteSink,
  response: Response,
  options: ResponseOptions,
): Promise<boolean> {
  const { status, headers } = response;
  const noBody = options.headOnly || status === 204 || status === 304 || status < 200;
  const declared = headers.get("content-length");
  // (`response.body` is not touched unless needed: reading it makes a stream.)
  if (noBody) {
    // A HEAD answer may still carry the GET body (a file stream): release it.
    await response.body?.cancel().catch(() => {});
    let length = "";
    if (options.headOnly) {
      if (declared !== null && /^\d+$/.test(declared)) length = `content-length: ${declared}\r\n`;
    } else if (status !== 204 && status !== 304) length = "content-length: 0\r\n";
    await writeAll(sink, headBytes(headText(status, headers, length, options.keepAlive)));
    return options.keepAlive;
  }
  // JSON answers are finite: read at once and sent with their length in one write.
  if (declared === null && /^application\/json\b/i.test(headers.get("content-type") ?? "")) {
    const text = await response.text();
    // ASCII (as JSON from JSON.stringify mostly is): characters are bytes, one encode.
    const ascii = !NON_ASCII.test(text);
    const body = ascii ? null : encoder.encode(text);
    const length = body ? body.byteLength : text.length;
    const head = headText(status, headers, `content-length: ${length}\r\n`, options.keepAlive);
    if (!body && !NON_ASCII.test(head)) {
      await writeAll(sink, encoder.encode(head + text));
      return options.keepAlive;
    }
    const bytes = headBytes(head);
    const payload = body ?? encoder.encode(text);
    await writeAll(sink, concatBytes(bytes, payload));
    return options.keepAlive;
  }
  if (!response.body) {
    const head = headText(status, headers, "content-length: 0\r\n", options.keepAlive);
    await writeAll(sink, headBytes(head));
    return options.keepAlive;
  }
  const reader = response.body.getReader();
  try {
    if (declared !== null && /^\d+$/.test(declared)) {
      const head = headBytes(
        headText(status, headers, `content-length: ${declared}\r\n`, options.keepAlive),
      );
      // The head leaves with the first chunk when that is small.
      let pending: Uint8Array | null = head;
      let left = Number(declared);
      for (;;) {
        const step = await reader.read();
        if (step.done) break;
        left -= step.value.byteLength;
        if (left < 0) throw new Error("Response body longer than its Content-Length");
        if (pending && step.value.byteLength <= SMALL_BODY) {
          await writeAll(sink, concatBytes(pending, step.value));
        } else {
          if (pending) await writeAll(sink, pending);
          await writeAll(sink, step.value);
        }
        pending = null;
      }
      if (pending) await writeAll(sink, pending);
      if (left !== 0) throw new Error("Response body shorter than its Content-Length");
      return options.keepAlive;
    }
    // Unknown length: buffer a small body to send its length, else go chunked.
    const first: Uint8Array[] = [];
    let size = 0;
    let ended = false;
    while (size <= SMALL_BODY) {
      const step = await reader.read();
      if (step.done) {
        ended = true;
        break;
      }
      first.push(step.value);
      size += step.value.byteLength;
    }
    if (ended) {
      const head = headBytes(
        headText(status, headers, `content-length: ${size}\r\n`, options.keepAlive),
      );
      await writeAll(sink, concatBytes(head, ...first));
      return options.keepAlive;
    }
    if (options.http10) {
      // HTTP/1.0 has no chunked coding: the body runs until the connection closes.
      await writeAll(sink, headBytes(headText(status, headers, "", false)));
      await writeAll(sink, concatBytes(...first));
      for (;;) {
        const step = await reader.read();
        if (step.done) return false;
        await writeAll(sink, step.value);
      }
    }
    const head = headBytes(
      headText(status, headers, "transfer-encoding: chunked\r\n", options.keepAlive),
    );
    await writeAll(sink, head);
    await writeChunk(sink, concatBytes(...first));
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      if (step.value.byteLength > 0) await writeChunk(sink, step.value);
    }
    await writeAll(sink, encoder.encode("0\r\n\r\n"));
    return options.keepAlive;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

async function writeChunk(sink: ByteSink, chunk: Uint8Array): Promise<void> {
  await writeAll(sink, encoder.encode(`${chunk.byteLength.toString(16)}\r\n`));
  await writeAll(sink, chunk);
  await writeAll(sink, encoder.encode("\r\n"));
}

/** A minimal JSON error response in the service's error shape, for errors below the app. */
export function plainError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}
