/**
 * Raw TCP helpers of the serving-layer tests.
 */
import type { ConnectionLimits } from "../../src/net/limits.ts";

/** Limits for tests: short timeouts, generous caps; override what a test exercises. */
export function testLimits(overrides: Partial<ConnectionLimits> = {}): ConnectionLimits {
  return {
    headerTimeoutMs: 1000,
    keepAliveTimeoutMs: 1000,
    bodyIdleTimeoutMs: 1000,
    requestTimeoutMs: 5000,
    minBytesPerSecond: 1024,
    throughputWindowMs: 1000,
    maxHeadBytes: 16 * 1024,
    maxConnections: 256,
    maxConnectionsPerAddress: 256,
    isExempt: () => false,
    ...overrides,
  };
}

/** Opens a raw connection to `port` on loopback. */
export function connect(port: number): Promise<Deno.TcpConn> {
  return Deno.connect({ hostname: "127.0.0.1", port });
}

/** Text as ISO-8859-1 bytes, one byte a character (for raw bytes 0x80–0xFF on the wire). */
export function latin1(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** Writes text as UTF-8 (tests send ASCII; see {@link latin1} for raw bytes), or bytes. */
export async function send(conn: Deno.Conn, text: string | Uint8Array): Promise<void> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

/**
 * Reads until the server closes the connection (or `limitMs` passes, then closes it);
 * returns what came and whether the server closed it.
 */
export async function readUntilClosed(
  conn: Deno.Conn,
  limitMs = 10_000,
): Promise<{ text: string; closedByServer: boolean; ms: number }> {
  const started = performance.now();
  const chunks: Uint8Array[] = [];
  const timer = setTimeout(() => conn.close(), limitMs);
  let closedByServer = false;
  try {
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) {
        closedByServer = true;
        break;
      }
      chunks.push(buf.slice(0, n));
    }
  } catch (err) {
    // A reset is the server closing too; our own timer closing it is not.
    closedByServer =
      !(err instanceof Deno.errors.BadResource || err instanceof Deno.errors.Interrupted);
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed */ }
  }
  const text = new TextDecoder().decode(
    chunks.reduce((all, c) => new Uint8Array([...all, ...c]), new Uint8Array()),
  );
  return { text, closedByServer, ms: performance.now() - started };
}

/** Reads one response head and its Content-Length body from a kept-alive connection. */
export async function readResponse(conn: Deno.Conn): Promise<{ head: string; body: string }> {
  let text = "";
  const buf = new Uint8Array(64 * 1024);
  for (;;) {
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) {
      const head = text.slice(0, end);
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (text.length >= end + 4 + length) {
        return { head, body: text.slice(end + 4, end + 4 + length) };
      }
    }
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed after: ${JSON.stringify(text)}`);
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
}

/** Waits `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
