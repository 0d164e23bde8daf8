/**
 * Owner-side fixtures: register a recipient key, publish a form, seal envelopes.
 */
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { open, seal } from "../../src/crypto/sealed_box.ts";
import { call } from "./server.ts";

/** Any running instance: in-process or a child process. */
export interface Target {
  url: string;
  credentials: { userId: string; ownerToken: string; adminToken: string };
}

/** A registered database with its key pair. */
export interface TestDatabase {
  id: string;
  fingerprint: string;
  publicKey: string;
  secretKey: Uint8Array;
}

/** Registers a fresh X25519 key as a database of the token's user (proof of possession). */
export async function registerDatabase(
  inst: Target,
  token = inst.credentials.ownerToken,
): Promise<TestDatabase> {
  const pair = generateKeyPair();
  const publicKey = pair.publicKey.toBase64();
  const started = await call(`${inst.url}/owner/databases`, {
    method: "POST",
    token,
    json: { name: "test db", publicKey },
  });
  if (started.status !== 201) throw new Error(`register: ${JSON.stringify(started.body)}`);
  const answer = await open(
    Uint8Array.fromBase64(started.body.sealedChallenge),
    pair.publicKey,
    pair.secretKey,
  );
  const done = await call(`${inst.url}/owner/databases/verify`, {
    method: "POST",
    token,
    json: { challengeId: started.body.challengeId, challenge: answer.toBase64() },
  });
  if (done.status !== 201) throw new Error(`verify: ${JSON.stringify(done.body)}`);
  return {
    id: done.body.id,
    fingerprint: done.body.fingerprint,
    publicKey,
    secretKey: pair.secretKey,
  };
}

/** A minimal manifest for `formId` routed to `db`. */
export function manifestFor(
  inst: Target,
  db: TestDatabase,
  formId: string,
  userId = inst.credentials.userId,
) {
  return {
    formId,
    schemaVersion: 1,
    title: `Form ${formId}`,
    recipient: { publicKey: db.publicKey, userId },
    fields: [{ id: "name", kind: "text", label: "Name", required: true }],
    relayUrl: inst.url,
  };
}

/** Publishes a minimal form routed to `db`. */
export async function publishForm(
  inst: Target,
  db: TestDatabase,
  formId: string,
  token = inst.credentials.ownerToken,
): Promise<void> {
  const res = await call(`${inst.url}/owner/forms/${formId}`, {
    method: "PUT",
    token,
    json: manifestFor(inst, db, formId),
  });
  if (res.status !== 200) throw new Error(`publish: ${JSON.stringify(res.body)}`);
}

/** A fresh submission id (UUIDv4 without dashes). */
export function newSubmissionId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/** An envelope sealing `payload` to `db`'s key. */
export async function envelopeFor(
  db: TestDatabase,
  formId: string,
  payload: unknown = {
    values: { name: "Ada" },
    submittedAt: new Date().toISOString(),
    formVersion: 1,
    formSchema: "",
    mode: "Create",
  },
  submissionId = newSubmissionId(),
) {
  const sealed = await seal(
    new TextEncoder().encode(JSON.stringify(payload)),
    Uint8Array.fromBase64(db.publicKey),
  );
  return {
    submissionId,
    formId,
    recipientPubkey: db.publicKey,
    submitterId: null,
    ciphertext: sealed.toBase64(),
  };
}
