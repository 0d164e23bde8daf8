/**
 * One raw exchange of the differential suite: a fresh connection, the case's bytes written
 * as they are, and everything the server answers until it closes the connection or goes
 * quiet.
 */
import { latin1Bytes, latin1Text } from "./latin1.ts";

/** A response as the client saw it. */
export interface SeenResponse {
  status: number;
  /** Whether the application answered it (`x-handler: 1`), not the server's parser. */
  handler: boolean;
  /** Whether it said `Connection: close`. */
  close: boolean;
  /** The body of a response the application did not give (the server's reason), if any. */
  detail?: string;
}

/** What came back on one connection. */
export interface Exchanged {
  /** The client's port: the key of the handler's records. */
  port: number;
  responses: SeenResponse[];
  /** Bytes past the last response that could be read as one (not a response). */
  rest: string;
  /** "closed": the server closed (or reset) the connection; "idle": it went quiet. */
  end: "closed" | "idle";
}

/** Gap between two parts of a case sent in pieces, in ms. */
const PART_GAP_MS = 40;

/**
 * Connects to `port` on loopback, calls `ready` with the client's port, writes `parts` (a
 * short pause between two), and reads until the server closes or nothing arrives for
 * `idleMs` after the last write or read.
 */
export async function exchange(
  port: number,
  parts: string[],
  idleMs: number,
  ready: (clientPort: number) => Promise<void> | void,
): Promise<Exchanged> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const clientPort = conn.localAddr.port;
  await ready(clientPort);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idle = false;
  let ended = false;
  const close = () => {
    ended = true;
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  };
  const arm = () => {
    if (ended) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle = true;
      close();
    }, idleMs);
  };
  const writing = (async () => {
    try {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, PART_GAP_MS));
        const bytes = latin1Bytes(part);
        for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
        arm();
      }
    } catch { /* the server closed early: what it answered is read below */ }
  })();
  arm();
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
      arm();
    }
  } catch { /* a reset ends it as a close does; our own close (idle) is told by `idle` */ }
  close();
  await writing;
  const text = chunks.map(latin1Text).join("");
  return { port: clientPort, ...splitResponses(text), end: idle ? "idle" : "closed" };
}

/**
 * The responses in `text`, in order (interim 1xx ones left out), and what is left past the
 * last one. A body is as long as its Content-Length (none without one): the handler answers
 * 204 and parser errors are short.
 */
function splitResponses(text: string): { responses: SeenResponse[]; rest: string } {
  const responses: SeenResponse[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const [statusLine, ...lines] = text.slice(at, end).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!status) break;
    const fields = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(":");
      fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const bodyless = status < 200 || status === 204 || status === 304;
    const length = bodyless ? 0 : Number(fields.get("content-length") ?? 0);
    const body = text.slice(end + 4, end + 4 + length);
    at = end + 4 + length;
    if (status < 200) continue;
    const handler = fields.get("x-handler") === "1";
    responses.push({
      status,
      handler,
      close: /\bclose\b/i.test(fields.get("connection") ?? ""),
      ...(!handler && body ? { detail: body } : {}),
    });
  }
  return { responses, rest: text.slice(at) };
}
