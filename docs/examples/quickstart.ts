/**
 * Quickstart, end to end against a running local instance (`npx -y deno@2.9.6 task start`):
 * register a recipient key, publish a form, submit a sealed envelope as a sender would,
 * then pull it from the owner's queue, open it and acknowledge it.
 *
 * Run: npx -y deno@2.9.6 run -A docs/examples/quickstart.ts [data-dir]
 */
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { open, seal } from "../../src/crypto/sealed_box.ts";

const dataDir = Deno.args[0] ?? "./data";
const { baseUrl, userId, ownerToken } = JSON.parse(
  await Deno.readTextFile(`${dataDir}/credentials.json`),
);
const relay = Deno.env.get("SEALPOST_URL") ?? baseUrl;

async function api(method: string, path: string, body?: unknown, token = ownerToken) {
  const res = await fetch(relay + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

// 1. The owner's recipient key pair; the relay only ever learns the public half.
const keys = generateKeyPair();
const publicKey = keys.publicKey.toBase64();

// 2. Register it: the relay seals a challenge to the key, only its holder can open it.
const challenge = await api("POST", "/owner/databases", { name: "quickstart", publicKey });
const answer = await open(
  Uint8Array.fromBase64(challenge.sealedChallenge),
  keys.publicKey,
  keys.secretKey,
);
const db = await api("POST", "/owner/databases/verify", {
  challengeId: challenge.challengeId,
  challenge: answer.toBase64(),
});
console.log(`registered database ${db.id} (key fingerprint ${db.fingerprint.slice(0, 16)}…)`);

// 3. Publish a form manifest routed to that key.
const formId = `quickstart-${db.id}`;
await api("PUT", `/owner/forms/${formId}`, {
  formId,
  schemaVersion: 1,
  title: "Quickstart",
  recipient: { publicKey, userId },
  fields: [{ id: "message", kind: "text", label: "Message", required: true }],
  relayUrl: relay,
});
console.log(`published form ${formId}`);

// 4. As the sender: read the manifest, seal the payload to its key, post the envelope.
const manifest = await api("GET", `/forms/${formId}/manifest`, undefined, "");
const payload = {
  values: { message: "Hello, sealed world" },
  submittedAt: new Date().toISOString(),
  formVersion: manifest.schemaVersion,
  formSchema: "",
  mode: "Create",
};
const sealed = await seal(
  new TextEncoder().encode(JSON.stringify(payload)),
  Uint8Array.fromBase64(manifest.recipient.publicKey),
);
const receipt = await api("POST", "/submissions", {
  submissionId: crypto.randomUUID().replaceAll("-", ""),
  formId,
  recipientPubkey: manifest.recipient.publicKey,
  submitterId: null,
  ciphertext: sealed.toBase64(),
}, "");
console.log(`submitted ${receipt.submissionId} (edit token received)`);

// 5. As the owner: pull the queue, open each envelope with the private key, ack it.
const { items } = await api("GET", `/owner/queues/${db.fingerprint}`);
for (const item of items) {
  const plain = await open(Uint8Array.fromBase64(item.ciphertext), keys.publicKey, keys.secretKey);
  console.log(`opened ${item.submissionId}:`, JSON.parse(new TextDecoder().decode(plain)).values);
}
const acked = await api("POST", `/owner/queues/${db.fingerprint}/ack`, {
  seqs: items.map((i: { seq: number }) => i.seq),
});
console.log(`acknowledged ${acked.acked}`);
