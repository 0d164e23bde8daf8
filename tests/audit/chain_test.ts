import assert from "node:assert/strict";
import {
  chainEntry,
  entryBytes,
  entryHash,
  GENESIS_HASH,
  positionSigned,
  signPosition,
} from "../../src/audit/chain.ts";
import { generateSigningKeyPair, manifestSigningBytes } from "../../src/crypto/signing.ts";
import { fromBase64, toHex } from "../../src/crypto/encoding.ts";
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";

const AT = new Date("2030-01-02T03:04:05.678Z");

Deno.test("audit chain: an entry's bytes are the context and the canonical JSON of its fields", () => {
  const entry = chainEntry(null, { personId: "p1", action: "sign_in", outcome: "ok" }, AT);
  assert.equal(
    new TextDecoder().decode(entryBytes(entry)),
    "sealpost-audit-entry-v1\n" +
      '{"at":"2030-01-02T03:04:05.678Z","event":{"action":"sign_in","outcome":"ok",' +
      `"personId":"p1"},"prevHash":"${GENESIS_HASH}","seq":1}`,
  );
  assert.equal(entry.hash, toHex(sha256(entryBytes(entry))));
  assert.match(entry.hash, /^[0-9a-f]{64}$/);
});

Deno.test("audit chain: each entry follows its predecessor's seq and hash", () => {
  const first = chainEntry(null, { action: "sign_in", personId: "p1" }, AT);
  const second = chainEntry(first, { action: "sign_out", personId: "p1" }, AT);
  assert.equal(first.seq, 1);
  assert.equal(first.prevHash, GENESIS_HASH);
  assert.equal(second.seq, 2);
  assert.equal(second.prevHash, first.hash);
  assert.equal(entryHash(second), second.hash);
});

Deno.test("audit chain: the hash covers seq, at, prevHash and every field of the event", () => {
  const entry = chainEntry(null, { action: "record_viewed", personId: "p1", detail: { n: 1 } }, AT);
  const changes = [
    { ...entry, seq: 2 },
    { ...entry, at: "2030-01-02T03:04:05.679Z" },
    { ...entry, prevHash: "1".repeat(64) },
    { ...entry, event: { ...entry.event, personId: "p2" } },
    { ...entry, event: { ...entry.event, detail: { n: 2 } } },
  ];
  for (const changed of changes) assert.notEqual(entryHash(changed), entry.hash);
});

Deno.test("audit chain: signed positions verify only as their kind, with their key", () => {
  const key = generateSigningKeyPair();
  const other = generateSigningKeyPair();
  const position = { seq: 7, hash: "ab".repeat(32) };
  const head = signPosition("head", position, key.secretKey);
  assert.equal(positionSigned("head", position, head, key.publicKey), true);
  assert.equal(positionSigned("checkpoint", position, head, key.publicKey), false);
  assert.equal(positionSigned("head", { ...position, seq: 8 }, head, key.publicKey), false);
  assert.equal(positionSigned("head", position, head, other.publicKey), false);
  assert.equal(positionSigned("head", position, "not base64!", key.publicKey), false);
});

Deno.test("audit chain: a head signature is not a manifest signature of the same members", () => {
  const key = generateSigningKeyPair();
  const position = { seq: 7, hash: "ab".repeat(32) };
  const signature = fromBase64(signPosition("head", position, key.secretKey));
  assert.equal(ed25519.verify(signature, manifestSigningBytes(position), key.publicKey), false);
});
