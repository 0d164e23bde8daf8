/**
 * Passwords: Argon2id hashes as PHC strings, the rules a new password must meet, and a
 * verification that costs the same for an unknown email as for a known one.
 *
 * Parameters (OWASP's first Argon2id choice): m = 19456 KiB (19 MiB), t = 2 passes, p = 1 lane,
 * a 16-byte random salt and a 32-byte hash, e.g.
 * `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>` (unpadded base64). Measured on the project's
 * 2-core machine (bench/password.ts, bench/RESULTS.md): about 65 ms per hash. The hash holds the
 * thread it runs on for that long, so every hash runs in one dedicated worker
 * (src/people/password_worker.ts), one after another: sign-ins queue behind each other, never
 * behind the server's requests. A hash stored with other parameters still verifies, and says
 * it wants a rehash with today's.
 *
 * The worker starts with the first hash and, like any Deno worker, keeps the process alive
 * until {@link stopPasswordHasher} ends it (the server at shutdown, a command when done).
 *
 * @module
 */
import { timingSafeEqual } from "../crypto/hmac.ts";
import { fromBase64, toBase64, utf8Encode } from "../crypto/encoding.ts";
import { Invalid } from "../errors/index.ts";
import { passwordWorkerUrl } from "./password_worker_url.ts";

/** Argon2id cost parameters: memory in KiB, passes, lanes. */
export interface Argon2Params {
  m: number;
  t: number;
  p: number;
}

/** Today's parameters of new hashes. */
export const ARGON2_PARAMS: Readonly<Argon2Params> = Object.freeze({ m: 19456, t: 2, p: 1 });

/** Fewest characters of a password (after NFC normalisation). */
export const PASSWORD_MIN = 12;
/** Most characters of a password (bounds the hashing work a request can ask for). */
export const PASSWORD_MAX = 1024;

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Bounds of a stored hash's parameters (a corrupt row cannot ask for a gigabyte). */
const LIMITS = { m: [8, 1024 * 1024], t: [1, 64], p: [1, 16] } as const;

/** One hash asked of the worker. */
export interface HashRequest {
  id: number;
  /** UTF-8 of the NFC-normalised password (bytes: the empty password is hashed too). */
  password: Uint8Array;
  salt: Uint8Array;
  params: Argon2Params;
  hashLength: number;
}

/** The worker's answer: the raw hash, or why it failed. */
export type HashReply = { id: number; hash: Uint8Array } | { id: number; error: string };

/** The one worker and the requests waiting for it (started on first use). */
class Hasher {
  #worker: Worker | null = null;
  #next = 0;
  #waiting = new Map<number, { resolve(h: Uint8Array): void; reject(e: Error): void }>();

  hash(password: string, salt: Uint8Array, params: Argon2Params, hashLength: number) {
    const worker = this.#worker ??= this.#start();
    const id = this.#next++;
    const request = { id, password: utf8Encode(password), salt, params, hashLength };
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      worker.postMessage(request satisfies HashRequest, [request.password.buffer as ArrayBuffer]);
    });
  }

  #start(): Worker {
    const worker = new Worker(passwordWorkerUrl(), { type: "module" });
    worker.onmessage = ({ data }: MessageEvent<HashReply>) => {
      const waiter = this.#waiting.get(data.id);
      this.#waiting.delete(data.id);
      if ("hash" in data) waiter?.resolve(data.hash);
      else waiter?.reject(new Error(`Password hashing failed: ${data.error}`));
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.stop(new Error(`Password hashing failed: ${event.message}`));
    };
    return worker;
  }

  /** Ends the worker; waiting hashes fail with `reason`. The next hash starts a new one. */
  stop(reason = new Error("The password hasher was stopped")): void {
    this.#worker?.terminate();
    this.#worker = null;
    for (const waiter of this.#waiting.values()) waiter.reject(reason);
    this.#waiting.clear();
  }
}

const hasher = new Hasher();

/**
 * Ends the hashing worker so the process can exit (at shutdown, at the end of a command or a
 * test); hashes still waiting fail, and a later hash starts a new worker.
 *
 * @example
 * ```ts
 * stopPasswordHasher();
 * ```
 */
export function stopPasswordHasher(): void {
  hasher.stop();
}

const b64 = (bytes: Uint8Array) => toBase64(bytes).replace(/=+$/, "");
const unb64 = (text: string) => fromBase64(text + "=".repeat((4 - (text.length % 4)) % 4));

/** A stored hash taken apart, or null when it is not an Argon2id PHC string we accept. */
function parsePhc(
  phc: string,
): { params: Argon2Params; salt: Uint8Array; hash: Uint8Array } | null {
  const m =
    /^\$argon2id\$v=19\$m=(\d{1,8}),t=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{16,})$/
      .exec(phc);
  if (!m) return null;
  const params = { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]) };
  for (const key of ["m", "t", "p"] as const) {
    const [low, high] = LIMITS[key];
    if (params[key] < low || params[key] > high) return null;
  }
  if (params.m < 8 * params.p) return null;
  try {
    return { params, salt: unb64(m[4]), hash: unb64(m[5]) };
  } catch {
    return null;
  }
}

/**
 * The password as it is hashed (NFC), or throws `Invalid` (`weak_password`, field `password`)
 * in plain words when it breaks a rule: 12 to 1024 characters, nothing else asked.
 *
 * @example
 * ```ts
 * checkPassword("correct horse battery"); // "correct horse battery"
 * ```
 */
export function checkPassword(password: string): string {
  const normal = password.normalize("NFC");
  const length = [...normal].length;
  if (length < PASSWORD_MIN) {
    throw new Invalid(
      "weak_password",
      `Choose a password of at least ${PASSWORD_MIN} characters (this one has ${length}). ` +
        "A few unrelated words make a good one.",
      "password",
    );
  }
  if (length > PASSWORD_MAX) {
    throw new Invalid(
      "weak_password",
      `Choose a password of at most ${PASSWORD_MAX} characters.`,
      "password",
    );
  }
  return normal;
}

/**
 * Hashes a new password (checked with {@link checkPassword} first) with today's parameters
 * and a fresh salt; resolves to its PHC string.
 *
 * @example
 * ```ts
 * const phc = await hashPassword("correct horse battery"); // "$argon2id$v=19$m=19456,t=2,p=1$…"
 * ```
 */
export async function hashPassword(password: string): Promise<string> {
  const normal = checkPassword(password);
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const { m, t, p } = ARGON2_PARAMS;
  const hash = await hasher.hash(normal, salt, ARGON2_PARAMS, HASH_BYTES);
  return `$argon2id$v=19$m=${m},t=${t},p=${p}$${b64(salt)}$${b64(hash)}`;
}

/**
 * Checks `password` against a stored PHC string: recomputes the hash with the stored salt and
 * parameters and compares in constant time. `rehash` is true when it matched under parameters
 * other than today's (store a new {@link hashPassword} then). A stored string that is not an
 * Argon2id hash we accept never matches (and still costs one hash). The password is NFC
 * normalised, not checked against today's rules (an old password still signs in).
 *
 * @example
 * ```ts
 * const { ok, rehash } = await verifyPassword("correct horse battery", person.passwordHash);
 * ```
 */
export async function verifyPassword(
  password: string,
  phc: string,
): Promise<{ ok: boolean; rehash: boolean }> {
  const stored = parsePhc(phc);
  if (!stored || password.length > PASSWORD_MAX * 4) {
    await dummyVerify(password);
    return { ok: false, rehash: false };
  }
  const normal = password.normalize("NFC");
  // Argon2 takes an empty password, hash-wasm does not; none is ever set, so none matches.
  const hash = await hasher.hash(normal || EMPTY, stored.salt, stored.params, stored.hash.length);
  const ok = timingSafeEqual(hash, stored.hash) && normal !== "";
  const { m, t, p } = stored.params;
  const current = m === ARGON2_PARAMS.m && t === ARGON2_PARAMS.t && p === ARGON2_PARAMS.p;
  return { ok, rehash: ok && (!current || stored.hash.length !== HASH_BYTES) };
}

/** Hashed in place of an empty password (which never matches), for the same cost. */
const EMPTY = "\0";

/** A fixed salt for {@link dummyVerify}: its result is thrown away. */
const DUMMY_SALT = new Uint8Array(SALT_BYTES);

/**
 * Spends what one {@link verifyPassword} spends and matches nothing: for a sign-in whose email
 * is unknown (or whose person has no password yet), so the answer takes as long as a wrong
 * password's and does not tell which emails exist.
 *
 * @example
 * ```ts
 * if (!person?.passwordHash) { await dummyVerify(password); return "wrong"; }
 * ```
 */
export async function dummyVerify(password: string): Promise<void> {
  const input = password.length > PASSWORD_MAX * 4 ? "" : password.normalize("NFC");
  await hasher.hash(input || EMPTY, DUMMY_SALT, ARGON2_PARAMS, HASH_BYTES);
}
