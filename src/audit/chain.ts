/**
 * The audit log's chain: what an entry's hash covers, and what the manifest key signs.
 *
 * **Entry hash.** Lowercase hex SHA-256 of the UTF-8 of
 * `"sealpost-audit-entry-v1\n" + canonicalJson({ seq, at, prevHash, event })`, canonical JSON as
 * for manifests (src/crypto/signing.ts: sorted keys, no whitespace, RFC 8785 for JSON data).
 * `prevHash` is the previous entry's hash; entry 1's is {@link GENESIS_HASH}. Changing, removing
 * or reordering an entry breaks the chain at that entry.
 *
 * **Signed positions.** The vault's Ed25519 manifest key signs a position `{ seq, hash }`: the
 * head, when an export is made (`"sealpost-audit-head-v1\n" + canonicalJson({ seq, hash })`),
 * and the checkpoint of a prune (`"sealpost-audit-checkpoint-v1\n" + …`). The prefixes keep
 * these signatures apart from each other and from manifest signatures made with the same key.
 *
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { canonicalJson } from "../crypto/signing.ts";
import { fromBase64, toBase64, toHex, utf8Encode } from "../crypto/encoding.ts";
import type { AuditEntry, AuditEvent, AuditHead } from "../store/ports/audit.ts";

/** The `prevHash` of entry 1: 64 zeros. */
export const GENESIS_HASH = "0".repeat(64);

/** The position of a log nothing was appended to. */
export const GENESIS: AuditHead = { seq: 0, hash: GENESIS_HASH };

const ENTRY_CONTEXT = "sealpost-audit-entry-v1\n";

/** What a signed position is: the head of an export, or the checkpoint of a prune. */
export type PositionKind = "head" | "checkpoint";

const POSITION_CONTEXT: Record<PositionKind, string> = {
  head: "sealpost-audit-head-v1\n",
  checkpoint: "sealpost-audit-checkpoint-v1\n",
};

/**
 * The bytes an entry's hash covers (see the module documentation).
 *
 * @example
 * ```ts
 * entryBytes({ seq: 1, at: "2026-01-01T00:00:00.000Z", prevHash: GENESIS_HASH, event });
 * ```
 */
export function entryBytes(entry: Omit<AuditEntry, "hash">): Uint8Array {
  const { seq, at, prevHash, event } = entry;
  return utf8Encode(ENTRY_CONTEXT + canonicalJson({ seq, at, prevHash, event }));
}

/**
 * An entry's hash: lowercase hex SHA-256 of {@link entryBytes}.
 *
 * @example
 * ```ts
 * entryHash(entry) === entry.hash; // unless the entry was changed
 * ```
 */
export function entryHash(entry: Omit<AuditEntry, "hash">): string {
  return toHex(sha256(entryBytes(entry)));
}

/**
 * The entry recording `event` at `at` after `prev` (null: the first entry of the log).
 *
 * @example
 * ```ts
 * await audit.append((prev) => chainEntry(prev, { action: "sign_out", personId }, new Date()));
 * ```
 */
export function chainEntry(prev: AuditHead | null, event: AuditEvent, at: Date): AuditEntry {
  const { seq, hash } = prev ?? GENESIS;
  const unhashed = { seq: seq + 1, at: at.toISOString(), prevHash: hash, event };
  return { ...unhashed, hash: entryHash(unhashed) };
}

function positionBytes(kind: PositionKind, position: AuditHead): Uint8Array {
  return utf8Encode(
    POSITION_CONTEXT[kind] + canonicalJson({ seq: position.seq, hash: position.hash }),
  );
}

/**
 * The standard base64 Ed25519 signature of `position` as a `kind` with the manifest key.
 *
 * @example
 * ```ts
 * const signature = signPosition("head", { seq, hash }, (await keys.manifestKey()).secretKey);
 * ```
 */
export function signPosition(
  kind: PositionKind,
  position: AuditHead,
  secretKey: Uint8Array,
): string {
  return toBase64(ed25519.sign(positionBytes(kind, position), secretKey));
}

/**
 * Whether `signature` (standard base64) is the manifest key `publicKey`'s signature of
 * `position` as a `kind`; false for anything malformed.
 *
 * @example
 * ```ts
 * positionSigned("head", { seq, hash }, signature, publicKey); // true
 * ```
 */
export function positionSigned(
  kind: PositionKind,
  position: AuditHead,
  signature: string,
  publicKey: Uint8Array,
): boolean {
  try {
    return ed25519.verify(fromBase64(signature), positionBytes(kind, position), publicKey, {
      zip215: false,
    });
  } catch {
    return false;
  }
}
