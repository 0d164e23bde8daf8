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
import { timingSafeEqual } from "../crypto/hmac.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../errors/index.ts";
import { type ChallengeRow, type DatabaseRow, keys, type UserRow } from "../store/keys.ts";
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
  kv: Deno.Kv,
  name: string,
): Promise<{ user: UserRow; ownerToken: string }> {
  const user: UserRow = { id: randomId(8), name, createdAt: new Date().toISOString() };
  const { token, row } = await mintToken("owner", user.id);
  const result = await kv.atomic()
    .check({ key: keys.user(user.id), versionstamp: null })
    .set(keys.user(user.id), user)
    .set(keys.token(row.id), row)
    .commit();
  if (!result.ok) throw new Error(`User id collision on ${user.id}`);
  return { user, ownerToken: token };
}

/** Creates an admin token (returned once). */
export async function createAdminToken(kv: Deno.Kv): Promise<string> {
  const { token, row } = await mintToken("admin", null);
  await kv.set(keys.token(row.id), row);
  return token;
}

/** Looks up a user. */
export async function getUser(kv: Deno.Kv, userId: string): Promise<UserRow | null> {
  return (await kv.get<UserRow>(keys.user(userId))).value;
}

/** Lists the databases of a user. */
export async function listDatabases(kv: Deno.Kv, userId: string): Promise<DatabaseRow[]> {
  const out: DatabaseRow[] = [];
  for await (const entry of kv.list<DatabaseRow>({ prefix: keys.databasesOf(userId) })) {
    out.push(entry.value);
  }
  return out;
}

/** Who registered the recipient key with this fingerprint, if anyone. */
export async function recipientOwner(
  kv: Deno.Kv,
  fp: string,
): Promise<{ userId: string; dbId: string } | null> {
  return (await kv.get<{ userId: string; dbId: string }>(keys.recipient(fp))).value;
}

/**
 * Starts registering `publicKey` as a database of `userId`: returns a challenge sealed to
 * the key. A key already registered (by anyone) is a 409.
 */
export async function startRegistration(
  kv: Deno.Kv,
  userId: string,
  name: string,
  publicKeyB64: string,
): Promise<{ challengeId: string; sealedChallenge: string; expiresAtUtc: string }> {
  const publicKey = decodeRecipientKey(publicKeyB64, "publicKey");
  const fp = fingerprint(publicKey);
  if (await recipientOwner(kv, fp)) {
    throw new Conflict("key_registered", "This recipient key is already registered");
  }
  const answer = crypto.getRandomValues(new Uint8Array(32));
  const row: ChallengeRow = {
    id: randomId(),
    userId,
    name,
    publicKey: publicKeyB64,
    fingerprint: fp,
    answerHash: await sha256Hex(answer),
    expiresAt: Date.now() + CHALLENGE_TTL_MS,
  };
  await kv.set(keys.challenge(row.id), row, { expireIn: CHALLENGE_TTL_MS });
  const sealed = await seal(answer, publicKey);
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
  kv: Deno.Kv,
  userId: string,
  challengeId: string,
  answerB64: string,
): Promise<DatabaseRow> {
  const entry = await kv.get<ChallengeRow>(keys.challenge(challengeId));
  const challenge = entry.value;
  if (!challenge || challenge.userId !== userId || challenge.expiresAt < Date.now()) {
    throw new NotFound("challenge_not_found", "Unknown or expired challenge", "challengeId");
  }
  let answer: Uint8Array<ArrayBuffer>;
  try {
    answer = Uint8Array.fromBase64(answerB64);
  } catch {
    throw new Invalid("invalid_request", "challenge is not valid base64", "challenge");
  }
  if (!timingSafeEqual(await sha256Hex(answer), challenge.answerHash)) {
    throw new Forbidden("challenge_failed", "The challenge answer is wrong", "challenge");
  }
  const db: DatabaseRow = {
    id: randomId(8),
    userId,
    name: challenge.name,
    publicKey: challenge.publicKey,
    fingerprint: challenge.fingerprint,
    createdAt: new Date().toISOString(),
  };
  const result = await kv.atomic()
    .check(entry)
    .check({ key: keys.recipient(db.fingerprint), versionstamp: null })
    .set(keys.database(userId, db.id), db)
    .set(keys.recipient(db.fingerprint), { userId, dbId: db.id })
    .delete(keys.challenge(challengeId))
    .commit();
  if (!result.ok) {
    throw new Conflict("key_registered", "This recipient key is already registered");
  }
  return db;
}
