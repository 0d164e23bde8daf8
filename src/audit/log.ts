/**
 * The audit log as the program records into it: {@link AuditLog.record} appends an event to the
 * chain (src/audit/chain.ts) through the audit port, and never fails the action it records: a
 * failure is logged and counted ({@link AuditLog.failures}). The head is signed on demand with
 * the vault's manifest key ({@link AuditLog.signedHead}).
 *
 * What enters the log is what {@link AuditEvent} admits and nothing more: fields outside it are
 * dropped, a `detail` value that is not a string, number or boolean is dropped, and a string that
 * looks like a secret (a Sealpost or webhook token, a password hash, a PEM or age key) is
 * replaced by {@link REDACTED}.
 *
 * @module
 */
import { toBase64 } from "../crypto/encoding.ts";
import type { SigningKeyPair } from "../crypto/signing.ts";
import type { AuditEvent, AuditPort } from "../store/ports/audit.ts";
import { chainEntry, GENESIS, signPosition } from "./chain.ts";

/** What stands in the log for a `detail` value that looks like a secret. */
export const REDACTED = "[redacted]";

/** The longest `detail` string kept (longer ones are cut). */
const DETAIL_CHARS = 200;

/** Strings that are secrets, whatever they were called: tokens, password hashes, keys. */
const SECRET = /\b(?:sp[a-z]|whsec)_[A-Za-z0-9_-]{6,}|\$argon2|-----BEGIN|AGE-SECRET-KEY-/i;

/** The head of the log, signed with the manifest key (src/audit/chain.ts). */
export interface SignedAuditHead {
  seq: number;
  hash: string;
  alg: "ed25519";
  /** The manifest key's raw 32-byte public key, standard base64. */
  publicKey: string;
  /** Standard base64 of the signature of `{ seq, hash }` as a head. */
  signature: string;
}

/** What an {@link AuditLog} needs besides its port. */
export interface AuditLogOptions {
  /** The vault's manifest key (`VaultKeys.manifestKey`), for signed heads. */
  manifestKey: () => Promise<SigningKeyPair>;
  /** Where a failed record is reported (default `console.error`). */
  log?: (message: string) => void;
  /** The clock of entries' `at` (default: now). */
  now?: () => Date;
}

/**
 * The instance's audit log.
 *
 * @example
 * ```ts
 * const audit = new AuditLog(ports.vault.audit, { manifestKey: () => keys.manifestKey() });
 * const target = { kind: "form", id: formId };
 * await audit.record({ action: "form_published", personId, databaseId, target });
 * const head = await audit.signedHead();
 * ```
 */
export class AuditLog {
  #failures = 0;
  #pending = new Set<Promise<void>>();
  /** The last append asked for (each waits for the one before; none rejects). */
  #tail: Promise<void> = Promise.resolve();

  constructor(private port: AuditPort, private options: AuditLogOptions) {}

  /** Events that could not be recorded since this log was made. */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Appends `event` (as {@link auditEvent} keeps it); resolves when stored, never rejects, so a
   * caller may leave it unawaited ({@link idle} waits for it).
   */
  record(event: AuditEvent): Promise<void> {
    // One append at a time, in the order of the calls: the log tells this process's actions
    // in the order they happened (concurrent appends would retry in any order).
    const done = this.#tail.then(() => this.#append(event));
    this.#tail = done;
    this.#pending.add(done);
    return done.finally(() => this.#pending.delete(done));
  }

  /** Resolves once every record started before the call is stored (or failed): before closing. */
  async idle(): Promise<void> {
    await Promise.all([...this.#pending]);
  }

  async #append(event: AuditEvent): Promise<void> {
    try {
      const kept = auditEvent(event);
      const now = this.options.now ?? (() => new Date());
      // The time is taken on the head the entry follows: `at` grows with `seq`.
      await this.port.append((prev) => chainEntry(prev, kept, now()));
    } catch (err) {
      this.#failures++;
      (this.options.log ?? console.error)(
        `Audit entry ${JSON.stringify(event?.action)} was not recorded: ${(err as Error).message}`,
      );
    }
  }

  /** The current head (seq 0 and the genesis hash for an empty log), signed now. */
  async signedHead(): Promise<SignedAuditHead> {
    const head = await this.port.head() ?? GENESIS;
    return await signHead(head, await this.options.manifestKey());
  }
}

/**
 * `head` signed with the manifest key `key`.
 *
 * @example
 * ```ts
 * const signed = signHead({ seq: 3, hash }, await keys.manifestKey());
 * ```
 */
export function signHead(
  head: { seq: number; hash: string },
  key: SigningKeyPair,
): SignedAuditHead {
  return {
    seq: head.seq,
    hash: head.hash,
    alg: "ed25519",
    publicKey: toBase64(key.publicKey),
    signature: signPosition("head", head, key.secretKey),
  };
}

/**
 * The part of `event` the log keeps: the fields of {@link AuditEvent} only, `detail` values that
 * are strings (secret-looking ones redacted, long ones cut), finite numbers or booleans.
 *
 * @example
 * ```ts
 * auditEvent({ action: "token_created", personId: "p1", detail: { token: "spt_x_secret" } });
 * // { action: "token_created", personId: "p1", detail: { token: "[redacted]" } }
 * ```
 */
export function auditEvent(event: AuditEvent): AuditEvent {
  const kept: AuditEvent = { action: event.action, personId: event.personId ?? null };
  if (typeof event.tokenId === "string") kept.tokenId = event.tokenId;
  if (typeof event.databaseId === "string") kept.databaseId = event.databaseId;
  if (event.target) kept.target = { kind: String(event.target.kind), id: String(event.target.id) };
  if (event.outcome === "ok" || event.outcome === "failure") kept.outcome = event.outcome;
  if (event.detail) {
    const detail: Record<string, string | number | boolean> = {};
    for (const [name, value] of Object.entries(event.detail)) {
      if (typeof value === "string") {
        detail[name] = SECRET.test(value) ? REDACTED : value.slice(0, DETAIL_CHARS);
      } else if (typeof value === "boolean" || Number.isFinite(value)) detail[name] = value;
    }
    kept.detail = detail;
  }
  return kept;
}
