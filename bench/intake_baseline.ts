/**
 * Baseline (a) for bench/intake: a bare `Deno.serve` doing the durable writes Sealpost does,
 * through the project's own group committer: parse the JSON envelope, decode the ciphertext,
 * SHA-256 of the same canonical form, then one group-committed check (the id is unused) with
 * the same two rows in the same compact encoding (src/store/kv/envelope_rows.ts: head by id,
 * queue row pointing into the segment files, which the same `SegmentLog` fsyncs before each
 * commit; the queue's recipient key stored once and left out of the rows). A failed check
 * reads the head and answers a replay or a conflict. No routing, validation, form lookup, edit
 * token, metrics or logging.
 *
 * With `net` as a fourth argument the same handler is served by Sealpost's own HTTP layer
 * (src/net `serveHttp`, with the limits of the default configuration and the benchmark's
 * per-address cap) instead of `Deno.serve`: the arm (a') of bench/intake, which prices the
 * hardened serving layer alone.
 *
 * Usage: deno run -A bench/intake_baseline.ts <port> <kv-path> <fingerprint> [net]
 * (the segment files go to `<kv-path>.segments/`)
 */
import { createHash } from "node:crypto";
import { GroupCommitter } from "../src/store/kv/group_commit.ts";
import { keys } from "../src/store/kv/keys.ts";
import { decodeHead, encodeHead, encodeQueued } from "../src/store/kv/envelope_rows.ts";
import { SegmentLog } from "../src/store/kv/segments.ts";
import { loadConfig } from "../src/config/index.ts";
import { connectionLimits } from "../src/net/config.ts";
import { serveHttp } from "../src/net/listener.ts";

const [port, path, fingerprint, server = "deno"] = Deno.args;
const kv = await Deno.openKv(path);
const segments = await SegmentLog.open(`${path}.segments`);
const committer = new GroupCommitter(kv, undefined, 1, () => segments.flush());
/** The queue's recipient key, stored by the first request (as Sealpost stores it). */
let queueKey: Promise<string> | null = null;
const storeQueueKey = async (pubkey: string) => {
  await kv.set(keys.queueKey(fingerprint), pubkey);
  return pubkey;
};

interface Envelope {
  submissionId: string;
  formId: string;
  recipientPubkey: string;
  submitterId: string | null;
  ciphertext: string;
}

async function handle(req: Request): Promise<Response> {
  let env: Envelope;
  let ciphertext: Uint8Array;
  try {
    env = await req.json();
    ciphertext = Uint8Array.fromBase64(env.ciphertext);
  } catch {
    // wrk closes its connections mid-request when a run ends.
    return new Response(null, { status: 400 });
  }
  const canonical = JSON.stringify([
    env.formId,
    env.recipientPubkey,
    env.submitterId ?? null,
    env.ciphertext,
  ]);
  const digest = createHash("sha256").update(canonical).digest("hex");
  const headKey = keys.submission(env.submissionId);
  const now = new Date().toISOString();
  const head = encodeHead({
    id: env.submissionId,
    formId: env.formId,
    fingerprint,
    createdAt: now,
    version: 1,
    digest,
    latestDigest: digest,
  });
  queueKey ??= storeQueueKey(env.recipientPubkey);
  const pubkey = env.recipientPubkey === await queueKey ? null : env.recipientPubkey;
  const ref = segments.append(ciphertext);
  const { ok } = await committer.commit({
    lock: env.submissionId,
    build: (w, seq) => {
      w.check({ key: headKey, versionstamp: null }).set(headKey, head).set(
        keys.queue(fingerprint, seq),
        encodeQueued({
          submissionId: env.submissionId,
          version: 1,
          formId: env.formId,
          recipientPubkey: pubkey,
          submitterId: env.submitterId ?? null,
          receivedAt: now,
          ref,
        }),
      );
    },
  }).finally(() => segments.settle(ref));
  if (ok) return Response.json({ submissionId: env.submissionId, version: 1 });
  const existing = await kv.get<Uint8Array>(headKey);
  if (existing.value && decodeHead(env.submissionId, existing.value).digest === digest) {
    return Response.json({ submissionId: env.submissionId, version: 1 });
  }
  return Response.json({ error: { code: "submission_conflict", message: "conflict" } }, {
    status: 409,
  });
}

const address = { hostname: "127.0.0.1", port: Number(port) };
if (server === "net") {
  const config = await loadConfig({
    env: { SEALPOST_SERVER_MAX_CONNECTIONS_PER_ADDRESS: "4096" },
  });
  serveHttp(address, connectionLimits(config), handle);
} else Deno.serve({ ...address, onListen: () => {} }, handle);
