/**
 * A tiny stand-in for the relay, on node:http so the same SDK tests run under Deno and under
 * Node 20. It serves one signed manifest, takes envelopes (idempotent on submissionId), hands
 * out upload slots and checks uploads the way the real storage does (Content-Type equal to the
 * slot's mime, SHA-256 equal to the slot's hash). Faults are scripted per path.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type SubmissionEnvelope, SubmissionEnvelopeSchema } from "../../src/forms/payload.ts";

/** A scripted fault, consumed by the next matching request. */
export type Fault =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { drop: true }
  | { delayMs: number };

/** One request as the fake relay saw it. */
export interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: Uint8Array;
}

/** A running fake relay. */
export interface FakeRelay {
  url: string;
  /** The manifest served at GET /forms/{formId}/manifest (replace it to serve another). */
  manifest: Record<string, unknown>;
  /** Every request, in order. */
  seen: Seen[];
  /** Accepted envelopes by submissionId. */
  envelopes: Map<string, SubmissionEnvelope>;
  /** Uploaded bytes by hash, with their Content-Type. */
  blobs: Map<string, { mime: string; bytes: Uint8Array }>;
  /** Scripted faults by "METHOD /path-prefix". */
  faults: Map<string, Fault[]>;
  close(): Promise<void>;
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function readBody(req: IncomingMessage): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

function send(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body === undefined ? "" : JSON.stringify(body));
}

const error = (code: string, message: string, field?: string) => ({
  error: field ? { code, message, field } : { code, message },
});

/** A static file the fake relay serves on GET (a test page and its scripts). */
export interface StaticFile {
  type: string;
  body: string | Uint8Array;
}

/** Starts a fake relay on 127.0.0.1 with a random port. */
export async function startFakeRelay(
  manifest: (url: string) => Record<string, unknown>,
  files: Record<string, StaticFile> = {},
): Promise<FakeRelay> {
  const slots = new Map<string, { mime: string; recipientUserId: string }>();
  const relay: FakeRelay = {
    url: "",
    manifest: {},
    seen: [],
    envelopes: new Map(),
    blobs: new Map(),
    faults: new Map(),
    close: () => Promise.resolve(),
  };
  const tokens = new Map<string, string>();

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    const method = req.method ?? "GET";
    relay.seen.push({ method, path: url.pathname, headers: req.headers, body });
    for (const [key, list] of relay.faults) {
      const [m, prefix] = key.split(" ");
      if (m !== method || !url.pathname.startsWith(prefix) || list.length === 0) continue;
      const fault = list.shift()!;
      if ("drop" in fault) return req.socket.destroy();
      if ("delayMs" in fault) {
        await new Promise((r) => setTimeout(r, fault.delayMs));
        continue;
      }
      return send(res, fault.status, fault.body, fault.headers);
    }
    const json = () => JSON.parse(new TextDecoder().decode(body));

    const file = method === "GET" ? files[url.pathname] : undefined;
    if (file) {
      res.writeHead(200, { "content-type": file.type });
      return res.end(file.body);
    }
    const m = /^\/forms\/([^/]+)\/manifest$/.exec(url.pathname);
    if (method === "GET" && m) {
      if (decodeURIComponent(m[1]) !== relay.manifest.formId) {
        return send(res, 404, error("not_found", `No form "${decodeURIComponent(m[1])}"`));
      }
      return send(res, 200, relay.manifest);
    }
    if (method === "POST" && url.pathname === "/submissions") {
      const parsed = SubmissionEnvelopeSchema.safeParse(json());
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return send(res, 400, error("invalid_request", issue.message, issue.path.join(".")));
      }
      const env = parsed.data;
      const previous = relay.envelopes.get(env.submissionId);
      if (previous && JSON.stringify(previous) !== JSON.stringify(env)) {
        return send(res, 409, error("conflict", "Same submissionId, other bytes"));
      }
      relay.envelopes.set(env.submissionId, env);
      const token = tokens.get(env.submissionId) ?? randomBytes(16).toString("hex");
      tokens.set(env.submissionId, token);
      return send(res, 200, { submissionId: env.submissionId, editToken: token });
    }
    if (method === "POST" && url.pathname === "/submissions/upload-slot") {
      const { recipientUserId, hash, mime, sizeBytes } = json();
      if (recipientUserId !== (relay.manifest.recipient as { userId: string }).userId) {
        return send(
          res,
          400,
          error("invalid_request", "Unknown recipientUserId", "recipientUserId"),
        );
      }
      if (!/^[0-9a-f]{64}$/.test(hash)) {
        return send(res, 400, error("invalid_request", "Bad hash", "hash"));
      }
      if (typeof sizeBytes !== "number" || sizeBytes < 1 || sizeBytes > 52_428_800) {
        return send(res, 400, error("invalid_request", "Bad sizeBytes", "sizeBytes"));
      }
      slots.set(hash, { mime, recipientUserId });
      return send(res, 200, {
        url: `/upload/${hash}?sig=fake`,
        key: `${recipientUserId}/${hash}`,
        expiresAtUtc: new Date(Date.now() + 600_000).toISOString(),
      });
    }
    const up = /^\/upload\/([0-9a-f]{64})$/.exec(url.pathname);
    if (method === "PUT" && up) {
      const slot = slots.get(up[1]);
      if (!slot) return send(res, 403, error("forbidden", "No such slot"));
      if (req.headers["content-type"] !== slot.mime) {
        return send(res, 403, error("signature_mismatch", "Content-Type differs from the slot"));
      }
      if (sha256(body) !== up[1]) return send(res, 400, error("hash_mismatch", "Hash mismatch"));
      relay.blobs.set(up[1], { mime: slot.mime, bytes: body });
      res.writeHead(201);
      return res.end();
    }
    send(res, 404, error("not_found", `No route ${method} ${url.pathname}`));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.manifest = manifest(relay.url);
  relay.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return relay;
}
