/**
 * The identity registry: users, their tokens and their databases (recipient keys).
 *
 * A database is registered with proof of possession: the relay seals a random challenge to
 * the key, and only the holder of the private key can return it.
 *
 * @module
 */
import { fingerprint } from "../crypto/keys.ts";
import { seal } from "../crypto/sealed_box.ts";
import { CryptoError } from "../crypto/errors.ts";
import { timingSafeEqual } from "../crypto/hmac.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../errors/index.ts";
import type { IdentityPort, KeyChallenge, RelayDatabase, User } from "../store/ports/identity.ts";
import { mintToken } from "../auth/tokens.ts";

/** How long a registration challenge stays answerable. */
const CHALLENGE_TTL_MS = 10 * 60 * 1000;

function randomId(bytes = 16): string {
  return crypto.getRandomValues(new Uint8Array(bytes)).toHex();
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
}

/** Decodes a standard-base64 X25519 public key, or throws a 400 naming `field`. */
export function decodeRecipientKey(b64: string, field: string): Uint8Array {
  let raw: Uint8Array;
  try {
    raw = Uint8Array.fromBase64(b64);
  } catch {
    throw new Invalid("invalid_request", `${field} is not valid base64`, field);
  }
  if (raw.length !== 32) {
    throw new Invalid(
      "invalid_request",
      `${field} must decode to 32 bytes, got ${raw.length}`,
      field,
    );
  }
  return raw;
}

/** Creates a user and its first owner token (returned once). */
export async function createUser(
  identity: IdentityPort,
  name: string,
): Promise<{ user: User; ownerToken: string }> {
  const user: User = { id: randomId(8), name, createdAt: new Date().toISOString() };
  const { token, row } = await mintToken("owner", user.id);
  if (!await identity.createUser(user, row)) throw new Error(`User id collision on ${user.id}`);
  return { user, ownerToken: token };
}

/** Creates an admin token (returned once). */
export async function createAdminToken(identity: IdentityPort): Promise<string> {
  const { token, row } = await mintToken("admin", null);
  await identity.saveToken(row);
  return token;
}

/**
 * Starts registering `publicKey` as a database of `userId`: returns a challenge sealed to
 * the key. A key already registered (by anyone) is a 409.
 */
export async function startRegistration(
  identity: IdentityPort,
  userId: string,
  name: string,
  publicKeyB64: string,
): Promise<{ challengeId: string; sealedChallenge: string; expiresAtUtc: string }> {
  const publicKey = decodeRecipientKey(publicKeyB64, "publicKey");
  const fp = fingerprint(publicKey);
  if (await identity.recipientOwner(fp)) {
    throw new Conflict("key_registered", "This recipient key is already registered");
  }
  const answer = crypto.getRandomValues(new Uint8Array(32));
  const row: KeyChallenge = {
    id: randomId(),
    userId,
    name,
    publicKey: publicKeyB64,
    fingerprint: fp,
    answerHash: await sha256Hex(answer),
    expiresAt: Date.now() + CHALLENGE_TTL_MS,
  };
  // Sealed first: a key no box can be sealed to (a low-order point) is the sender's error,
  // and leaves no challenge behind.
  let sealed: Uint8Array;
  try {
    sealed = await seal(answer, publicKey);
  } catch (err) {
    if (!(err instanceof CryptoError)) throw err;
    throw new Invalid(
      "invalid_request",
      `publicKey is not a usable X25519 key: ${err.message}`,
      "publicKey",
    );
  }
  await identity.saveChallenge(row);
  return {
    challengeId: row.id,
    sealedChallenge: sealed.toBase64(),
    expiresAtUtc: new Date(row.expiresAt).toISOString(),
  };
}

/**
 * Completes a registration: `answerB64` must be the opened challenge. On success the key
 * is routed to the user and the challenge is consumed.
 */
export async function completeRegistration(
  identity: IdentityPort,
  userId: string,
  challengeId: string,
  answerB64: string,
): Promise<RelayDatabase> {
  const challenge = await identity.getChallenge(challengeId);
  if (!challenge || challenge.userId !== userId) throw challengeNotFound();
  let answer: Uint8Array<ArrayBuffer>;
  try {
    answer = Uint8Array.fromBase64(answerB64);
  } catch {
    throw new Invalid("invalid_request", "challenge is not valid base64", "challenge");
  }
  if (!timingSafeEqual(await sha256Hex(answer), challenge.answerHash)) {
    throw new Forbidden("challenge_failed", "The challenge answer is wrong", "challenge");
  }
  const db: RelayDatabase = {
    id: randomId(8),
    userId,
    name: challenge.name,
    publicKey: challenge.publicKey,
    fingerprint: challenge.fingerprint,
    createdAt: new Date().toISOString(),
  };
  const outcome = await identity.completeRegistration(challenge, db);
  if (outcome === "challenge_gone") throw challengeNotFound();
  if (outcome === "key_registered") {
    throw new Conflict("key_registered", "This recipient key is already registered");
  }
  return db;
}

function challengeNotFound(): NotFound {
  return new NotFound("challenge_not_found", "Unknown or expired challenge", "challengeId");
}
