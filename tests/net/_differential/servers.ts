/**
 * The two servers the differential suite compares: Node.js's (llhttp) in a child process and
 * Sealpost's `serveHttp` in this one, each with an application that records what it saw.
 */
import { serveHttp } from "../../../src/net/listener.ts";
import { NODE } from "../../_support/tools.ts";
import { testLimits } from "../_raw.ts";
import { type BodyMode, type HandlerRecord, Recorder } from "./recorder.ts";

/** What a server reports of one client's connection. */
export interface Taken {
  records: HandlerRecord[];
  errors: string[];
}

/** One server under test and its recording application. */
export interface Side {
  /** The port it listens on (loopback). */
  port: number;
  /** Sets how the handler treats bodies of requests from `clientPort`. */
  setMode(clientPort: number, mode: BodyMode): Promise<void>;
  /**
   * What the handler saw from `clientPort`, once settled, and the parse errors the server
   * reported for it (Node's `clientError` codes; none for Sealpost, whose answers say why).
   */
  take(clientPort: number): Promise<Taken>;
  /** Stops the server (for Node: kills the child, whatever state it is in). */
  stop(): Promise<void>;
}

const SCRIPT = new URL("../_llhttp_server.mjs", import.meta.url).pathname;

/** How long the Node child may take to start listening. */
const START_MS = 10_000;

/**
 * Runs `fn` with both servers listening, then stops both (the Node child is killed) whether
 * `fn` returned or threw.
 */
export async function withServers<T>(
  fn: (llhttp: Side, sealpost: Side) => Promise<T>,
): Promise<T> {
  const sealpost = startSealpost();
  try {
    const llhttp = await startLlhttp();
    try {
      return await fn(llhttp, sealpost);
    } finally {
      await llhttp.stop();
    }
  } finally {
    await sealpost.stop();
  }
}

/**
 * Sealpost's listener in this process. Its timeouts are well above the runner's idle cut:
 * a case ends on what the parser does, never on a server timeout.
 */
function startSealpost(): Side {
  const recorder = new Recorder();
  const limits = testLimits({
    headerTimeoutMs: 10_000,
    keepAliveTimeoutMs: 10_000,
    bodyIdleTimeoutMs: 10_000,
    requestTimeoutMs: 20_000,
  });
  const server = serveHttp({ hostname: "127.0.0.1", port: 0 }, limits, recorder.handler, () => {});
  return {
    port: server.addr.port,
    setMode: (clientPort, mode) => Promise.resolve(recorder.setMode(clientPort, mode)),
    take: async (clientPort) => ({ records: await recorder.take(clientPort), errors: [] }),
    stop: () => server.shutdown(),
  };
}

/** Node's HTTP server (tests/net/_llhttp_server.mjs) in a child process, listening. */
async function startLlhttp(): Promise<Side> {
  const child = new Deno.Command(NODE, {
    args: [SCRIPT],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const stdin = child.stdin.getWriter();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    await stdin.close().catch(() => {});
    await stdout.cancel().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch { /* exited already */ }
    await child.status;
  };
  try {
    const { port, control } = await firstLine(stdout);
    const base = `http://127.0.0.1:${control}`;
    return {
      port,
      setMode: async (clientPort, mode) => {
        await (await fetch(`${base}/mode/${clientPort}/${mode}`, { method: "PUT" })).body
          ?.cancel();
      },
      take: async (clientPort) => await (await fetch(`${base}/take/${clientPort}`)).json(),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The JSON line the child prints once listening (bounded by {@link START_MS}). */
async function firstLine(
  reader: ReadableStreamDefaultReader<string>,
): Promise<{ port: number; control: number }> {
  let text = "";
  const timer = setTimeout(() => reader.cancel(), START_MS);
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the llhttp server did not start: ${JSON.stringify(text)}`);
      text += value;
    }
  } finally {
    clearTimeout(timer);
  }
  return JSON.parse(text.slice(0, text.indexOf("\n")));
}
