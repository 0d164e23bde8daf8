/**
 * The vault's private keys: one X25519 key pair per database and one Ed25519 manifest key per
 * vault, each a 0600 JSON file under `<data_dir>/vault/keys/`.
 *
 * With a passphrase (`SEALPOST_PASSPHRASE`), secret keys are sealed at rest with
 * XSalsa20-Poly1305 under a key derived by scrypt (N = 2^15, r = 8, p = 1, 16-byte random salt
 * per file). Without one they are stored in clear, protected by file permissions only.
 *
 * Reading a sealed key file without `SEALPOST_PASSPHRASE`: when stdin is a terminal the
 * passphrase is asked once with `prompt("Vault passphrase:")`. That prompt ECHOES what is typed
 * (Deno has no hidden input); the passphrase is never logged or written anywhere. When stdin is
 * not a terminal (a service, a pipe) it is a {@link VaultKeyError} instead.
 *
 * @module
 */
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { scryptAsync } from "@noble/hashes/scrypt.js";
import { join } from "node:path";
import { fingerprint, generateKeyPair, type KeyPair } from "../crypto/keys.ts";
import {
  generateSigningKeyPair,
  manifestKeyFingerprint,
  type SigningKeyPair,
  signingPublicKey,
} from "../crypto/signing.ts";
import { readIfExists, writeSecretFile } from "../store/data_dir.ts";

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, dkLen: 32 };
const MANIFEST_KEY_FILE = "manifest.key";

/** A key file's secret half: in clear, or sealed under a passphrase. */
type SecretPart =
  | { secretKey: string }
  | {
    sealed: {
      kdf: "scrypt";
      N: number;
      r: number;
      p: number;
      salt: string;
      nonce: string;
      box: string;
    };
  };

type KeyFile = { v: 1; kind: "x25519" | "ed25519"; publicKey: string } & SecretPart;

/** A key file cannot be read: wrong passphrase, missing passphrase or a damaged file. */
export class VaultKeyError extends Error {
  override name = "VaultKeyError";
}

/** Paths of the vault's key files. */
export function vaultPaths(dataDir: string) {
  const dir = join(dataDir, "vault");
  return {
    dir,
    keys: join(dir, "keys"),
    manifestKey: join(dir, "keys", MANIFEST_KEY_FILE),
    databaseKey: (fp: string) => join(dir, "keys", `db-${fp}.key`),
    relayLink: join(dir, "relay.json"),
  };
}

async function seal(secret: Uint8Array, passphrase: string): Promise<SecretPart> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const nonce = crypto.getRandomValues(new Uint8Array(24));
  const key = await scryptAsync(passphrase, salt, SCRYPT);
  const box = xsalsa20poly1305(key, nonce).encrypt(secret);
  key.fill(0);
  return {
    sealed: {
      kdf: "scrypt",
      N: SCRYPT.N,
      r: SCRYPT.r,
      p: SCRYPT.p,
      salt: salt.toBase64(),
      nonce: nonce.toBase64(),
      box: box.toBase64(),
    },
  };
}

/** How a missing passphrase is asked for; injectable for tests. */
export interface PassphrasePrompt {
  /** Whether stdin is a terminal someone can type into. */
  isTerminal(): boolean;
  /** Asks; null when nothing was entered. */
  prompt(message: string): string | null;
}

const TERMINAL: PassphrasePrompt = {
  isTerminal: () => Deno.stdin.isTerminal(),
  prompt: (message) => globalThis.prompt(message),
};

async function unseal(
  file: KeyFile,
  path: string,
  getPassphrase: (path: string) => string,
): Promise<Uint8Array> {
  if ("secretKey" in file) return Uint8Array.fromBase64(file.secretKey);
  const passphrase = getPassphrase(path);
  const { N, r, p, salt, nonce, box } = file.sealed;
  const key = await scryptAsync(passphrase, Uint8Array.fromBase64(salt), { N, r, p, dkLen: 32 });
  try {
    return xsalsa20poly1305(key, Uint8Array.fromBase64(nonce)).decrypt(Uint8Array.fromBase64(box));
  } catch {
    throw new VaultKeyError(`Wrong passphrase for key file ${path}`);
  } finally {
    key.fill(0);
  }
}

async function writeKeyFile(
  path: string,
  kind: KeyFile["kind"],
  pair: { publicKey: Uint8Array; secretKey: Uint8Array },
  passphrase: string | null,
): Promise<void> {
  const secret = passphrase === null
    ? { secretKey: pair.secretKey.toBase64() }
    : await seal(pair.secretKey, passphrase);
  const file = { v: 1, kind, publicKey: pair.publicKey.toBase64(), ...secret };
  await writeSecretFile(path, JSON.stringify(file, null, 2) + "\n");
}

async function readKeyFile(path: string): Promise<KeyFile | null> {
  const text = await readIfExists(path);
  if (text === null) return null;
  try {
    return JSON.parse(text) as KeyFile;
  } catch {
    throw new VaultKeyError(`Key file ${path} is not valid JSON`);
  }
}

/**
 * The key store of one vault: creates, loads and caches its key pairs.
 *
 * @example
 * ```ts
 * const keys = new VaultKeys("./data", Deno.env.get("SEALPOST_PASSPHRASE") ?? null);
 * const { fingerprint } = await keys.createDatabaseKey();
 * const pair = await keys.databaseKey(fingerprint);
 * ```
 */
export class VaultKeys {
  #databases = new Map<string, KeyPair>();
  #manifest: Promise<SigningKeyPair> | null = null;
  /** A passphrase typed at the prompt, kept for the other sealed files (never logged). */
  #typed: string | null = null;
  readonly paths: ReturnType<typeof vaultPaths>;

  /**
   * `passphrase` null: new keys are stored in clear, and a sealed key file is read with a
   * passphrase asked on the terminal (`ask`), or fails when stdin is not a terminal.
   */
  constructor(
    dataDir: string,
    private passphrase: string | null,
    private ask: PassphrasePrompt = TERMINAL,
  ) {
    this.paths = vaultPaths(dataDir);
  }

  /** The passphrase to open a sealed key file: configured, typed before, or asked now. */
  #passphraseFor = (path: string): string => {
    if (this.passphrase !== null) return this.passphrase;
    if (this.#typed !== null) return this.#typed;
    if (!this.ask.isTerminal()) {
      throw new VaultKeyError(`Key file ${path} is passphrase-protected; set SEALPOST_PASSPHRASE`);
    }
    const typed = this.ask.prompt("Vault passphrase:");
    if (!typed) throw new VaultKeyError(`No passphrase entered for key file ${path}`);
    return this.#typed = typed;
  };

  /** Unseals with {@link #passphraseFor}; a typed passphrase that fails is forgotten. */
  async #unseal(file: KeyFile, path: string): Promise<Uint8Array> {
    try {
      return await unseal(file, path, this.#passphraseFor);
    } catch (err) {
      if (this.passphrase === null) this.#typed = null;
      throw err;
    }
  }

  async #ensureDir() {
    await Deno.mkdir(this.paths.keys, { recursive: true, mode: 0o700 });
  }

  /** Creates a fresh X25519 key pair, saved before it is returned. */
  async createDatabaseKey(): Promise<KeyPair & { fingerprint: string }> {
    await this.#ensureDir();
    const pair = generateKeyPair();
    const fp = fingerprint(pair.publicKey);
    await writeKeyFile(this.paths.databaseKey(fp), "x25519", pair, this.passphrase);
    this.#databases.set(fp, pair);
    return { ...pair, fingerprint: fp };
  }

  /** The key pair of the database key with fingerprint `fp`. */
  async databaseKey(fp: string): Promise<KeyPair> {
    const cached = this.#databases.get(fp);
    if (cached) return cached;
    if (!/^[0-9a-f]{64}$/.test(fp)) throw new VaultKeyError(`Invalid key fingerprint "${fp}"`);
    const path = this.paths.databaseKey(fp);
    const file = await readKeyFile(path);
    if (!file) throw new VaultKeyError(`No private key for database key ${fp} (${path})`);
    const pair = {
      publicKey: Uint8Array.fromBase64(file.publicKey),
      secretKey: await this.#unseal(file, path),
    };
    this.#databases.set(fp, pair);
    return pair;
  }

  /** Removes the key file of a key that never got registered. */
  async discardDatabaseKey(fp: string): Promise<void> {
    this.#databases.delete(fp);
    await Deno.remove(this.paths.databaseKey(fp)).catch(() => {});
  }

  /** The vault's manifest key, created on first use. */
  manifestKey(): Promise<SigningKeyPair> {
    this.#manifest ??= this.#loadManifestKey().catch((err) => {
      this.#manifest = null;
      throw err;
    });
    return this.#manifest;
  }

  /** Fingerprint of the manifest key (what senders pin). */
  async manifestFingerprint(): Promise<string> {
    return manifestKeyFingerprint((await this.manifestKey()).publicKey);
  }

  async #loadManifestKey(): Promise<SigningKeyPair> {
    const path = this.paths.manifestKey;
    const file = await readKeyFile(path);
    if (file) {
      const secretKey = await this.#unseal(file, path);
      return { publicKey: signingPublicKey(secretKey), secretKey };
    }
    await this.#ensureDir();
    const pair = generateSigningKeyPair();
    await writeKeyFile(path, "ed25519", pair, this.passphrase);
    return pair;
  }
}
