/**
 * Node.js's own HTTP server (its parser is llhttp), the reference side of
 * tests/net/differential_test.ts. Run with Node: `node tests/net/_llhttp_server.mjs`.
 *
 * Parser options are Node's defaults: no `insecureHTTPParser` (llhttp's lenient flags off),
 * `requireHostHeader: true` (Node's default, and what Sealpost does: an HTTP/1.1 request
 * without Host is answered 400), the default 16 KiB `maxHeaderSize`. Timeouts are raised
 * above the differential runner's idle cut, so that no case ends on a server timeout.
 *
 * The application mirrors tests/net/_differential/recorder.ts: each request is recorded by
 * the client's port (method, path, and the body it read or a body error) and answered 204
 * with `x-handler: 1`. GET and HEAD bodies are never read (Sealpost hands the application
 * none); other bodies are read unless the client's port was set to "ignore".
 *
 * Two departures from a bare `createServer`, both outside llhttp: an `Expect` other than
 * 100-continue goes to the handler (Node would answer 417 itself, a choice of its HTTP layer
 * that Sealpost does not make), and an Upgrade request is recorded and answered by the
 * handler, which declines it and closes (Node hands the socket to an `upgrade` listener and
 * would otherwise leave it hanging; llhttp parses no further either way).
 *
 * Parse errors (the `clientError` event) are recorded by client port as `CODE: reason`, and
 * answered as Node answers them by default.
 *
 * On start it prints one JSON line: `{"port": …, "control": …}`. The control server answers
 * `PUT /mode/<clientPort>/<read|ignore>` and `GET /take/<clientPort>` (that port's records
 * and parse errors, `{records, errors}`, once its requests settled; then forgotten). The
 * process exits when its stdin closes.
 */
import http from "node:http";

/** How long `take` waits for a client's requests to settle. */
const SETTLE_MS = 1000;

const records = new Map();
const errors = new Map();
const pending = new Map();
const modes = new Map();
/** Each connection's socket → its client's port and a promise of its close. */
const sockets = new WeakMap();

/** The path Sealpost's handler would see for `target` (a WHATWG URL's pathname). */
function pathOf(target) {
  if (target === "*") return "/";
  try {
    return new URL(target.startsWith("/") ? `http://h${target}` : target).pathname;
  } catch {
    return target;
  }
}

function respond(res) {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(204, { "x-handler": "1" });
  res.end();
}

function handle(req, res) {
  const { port, closed } = sockets.get(req.socket);
  const record = { method: req.method, path: pathOf(req.url), body: null, error: false };
  if (!records.has(port)) records.set(port, []);
  records.get(port).push(record);
  const read = req.method !== "GET" && req.method !== "HEAD" && modes.get(port) !== "ignore";
  const chunks = [];
  let ended = false;
  req.on("error", () => {});
  // Settled when the body ended, or the request or its socket closed (a request already
  // answered is closed with its socket only).
  const settled = new Promise((resolve) => {
    const settle = () => {
      record.complete = req.complete;
      if (read && !ended) record.error = true;
      resolve();
    };
    req.on("end", () => {
      ended = true;
      if (read) record.body = Buffer.concat(chunks).toString("latin1");
      settle();
      if (read) respond(res);
    });
    req.on("close", settle);
    closed.then(settle);
  });
  if (!pending.has(port)) pending.set(port, []);
  pending.get(port).push(settled);
  if (read) req.on("data", (chunk) => chunks.push(chunk));
  else respond(res);
}

const server = http.createServer({
  requireHostHeader: true,
  keepAliveTimeout: 10_000,
  headersTimeout: 10_000,
  requestTimeout: 20_000,
}, handle);
server.on("checkExpectation", handle);
// Node's own answer to a parse error (lib/_http_server.js, socketOnError), with the error
// recorded: a listener replaces the default, so the default is repeated here.
const ERROR_ANSWERS = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};
server.on("clientError", (err, socket) => {
  const port = sockets.get(socket)?.port;
  if (!errors.has(port)) errors.set(port, []);
  errors.get(port).push(err.reason ? `${err.code}: ${err.reason}` : String(err.code));
  if (socket.writable && (!socket._httpMessage || !socket._httpMessage._headerSent)) {
    const status = ERROR_ANSWERS[err.code] ?? "400 Bad Request";
    socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy(err);
});
server.on("connection", (socket) => {
  const closed = new Promise((resolve) => socket.once("close", resolve));
  sockets.set(socket, { port: socket.remotePort, closed });
});
server.on("upgrade", (req, socket) => {
  const { port } = sockets.get(socket);
  if (!records.has(port)) records.set(port, []);
  records.get(port).push({
    method: req.method,
    path: pathOf(req.url),
    body: null,
    error: false,
    complete: true,
  });
  socket.end("HTTP/1.1 204 No Content\r\nx-handler: 1\r\nConnection: close\r\n\r\n");
});

const control = http.createServer(async (req, res) => {
  const [, verb, port, mode] = req.url.split("/");
  if (verb === "mode") {
    modes.set(Number(port), mode);
    res.end();
    return;
  }
  const waits = pending.get(Number(port)) ?? [];
  await Promise.race([
    Promise.allSettled(waits),
    new Promise((resolve) => setTimeout(resolve, SETTLE_MS)),
  ]);
  const taken = {
    records: records.get(Number(port)) ?? [],
    errors: errors.get(Number(port)) ?? [],
  };
  for (const map of [records, errors, pending, modes]) map.delete(Number(port));
  res.setHeader("content-type", "application/json");
  res.end(JSON.stringify(taken));
});

const listening = (s) => new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
await Promise.all([listening(server), listening(control)]);
process.stdout.write(
  `${JSON.stringify({ port: server.address().port, control: control.address().port })}\n`,
);
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
