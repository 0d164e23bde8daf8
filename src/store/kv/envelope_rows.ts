/**
 * The compact encoding of the envelope port's two rows per envelope (a submission's head and a
 * queued version), stored as raw bytes (Deno KV keeps a `Uint8Array` value as it is, with no
 * V8 serialization, no field names).
 *
 * Nothing the key already holds is repeated (the head's id), lowercase hex (ids, fingerprints,
 * digests) is kept as its bytes, ISO 8601 times as epoch milliseconds, numbers as LEB128
 * varints, a head's latest digest only when it differs from the original's, and a queued
 * version's recipient key only when it differs from its queue's (`keys.queueKey`). Every
 * string round-trips exactly: one that is not lowercase hex, or a time that is not
 * `toISOString()`'s, is kept as text. The first byte names the format.
 *
 * @module
 */
import type { EnvelopeHeader, SubmissionHead } from "../ports/envelopes.ts";
import type { SegmentRef } from "./segments.ts";

/**
 * A queued envelope version, in its recipient's queue (ordered by `seq`). Stored, like the
 * submission head, in the compact encoding of src/store/kv/envelope_rows.ts.
 */
export interface QueueRow extends EnvelopeHeader {
  /** Where the sealed box lies in the segment files (src/store/kv/segments.ts). */
  ref: SegmentRef;
}

const FORMAT = 1;
const HEX = /^(?:[0-9a-f]{2})+$/;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A queue row as stored: `recipientPubkey` null when it is the queue's key. */
export interface StoredQueueRow extends Omit<QueueRow, "recipientPubkey"> {
  recipientPubkey: string | null;
}

/** Where rows are encoded: one buffer reused by every row (encoding never awaits). */
let scratch = new Uint8Array(512);

/** The last time `time()` checked exact, as ISO text and its encoding (ms × 2). */
let lastIso = "";
let lastIsoCode = 0;

/**
 * Encodes one row into the shared scratch buffer; {@link bytes} copies it out. Hex is written
 * in place, so a row costs one allocation (its bytes).
 */
class Writer {
  #at = 1;

  constructor() {
    scratch[0] = FORMAT;
  }

  varint(n: number): this {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Not a stored count: ${n}`);
    this.#room(8);
    while (n >= 0x80) {
      scratch[this.#at++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    scratch[this.#at++] = n;
    return this;
  }

  /** Length and kind (hex or UTF-8) in one varint, then the bytes. */
  text(s: string): this {
    if (HEX.test(s)) {
      const length = s.length / 2;
      this.varint(length * 2 + 1);
      this.#room(length);
      scratch.subarray(this.#at).setFromHex(s);
      this.#at += length;
      return this;
    }
    if (s.length <= 21) {
      // At most 63 bytes: the length fits one varint byte, written after the text.
      this.#room(64);
      const { written } = utf8.encodeInto(s, scratch.subarray(this.#at + 1));
      scratch[this.#at] = written * 2;
      this.#at += 1 + written;
      return this;
    }
    const bytes = utf8.encode(s);
    this.varint(bytes.length * 2);
    this.#room(bytes.length);
    scratch.set(bytes, this.#at);
    this.#at += bytes.length;
    return this;
  }

  optText(s: string | null): this {
    this.#room(1);
    scratch[this.#at++] = s === null ? 0 : 1;
    return s === null ? this : this.text(s);
  }

  /** Even: milliseconds × 2; 1: the text follows. */
  time(iso: string): this {
    if (iso === lastIso) return this.varint(lastIsoCode);
    const ms = Date.parse(iso);
    const exact = Number.isSafeInteger(ms) && ms >= 0 && new Date(ms).toISOString() === iso;
    if (!exact) return this.varint(1).text(iso);
    lastIso = iso;
    lastIsoCode = ms * 2;
    return this.varint(lastIsoCode);
  }

  bytes(): Uint8Array {
    return scratch.slice(0, this.#at);
  }

  #room(n: number): void {
    if (this.#at + n <= scratch.length) return;
    const grown = new Uint8Array(Math.max(scratch.length * 2, this.#at + n));
    grown.set(scratch.subarray(0, this.#at));
    scratch = grown;
  }
}

class Reader {
  #at = 1;

  constructor(private readonly value: Uint8Array, what: string) {
    if (value[0] !== FORMAT) throw new Error(`Unknown ${what} row format ${value[0]}`);
  }

  varint(): number {
    let n = 0;
    let scale = 1;
    for (;;) {
      const byte = this.#byte();
      n += (byte & 0x7f) * scale;
      if (byte < 0x80) return n;
      scale *= 0x80;
    }
  }

  text(): string {
    const head = this.varint();
    const length = Math.floor(head / 2);
    if (this.#at + length > this.value.length) throw new Error("A stored row ends early");
    const bytes = this.value.subarray(this.#at, this.#at + length);
    this.#at += length;
    return head % 2 ? bytes.toHex() : fromUtf8.decode(bytes);
  }

  optText(): string | null {
    return this.#byte() === 0 ? null : this.text();
  }

  time(): string {
    const v = this.varint();
    return v % 2 ? this.text() : new Date(v / 2).toISOString();
  }

  #byte(): number {
    if (this.#at >= this.value.length) throw new Error("A stored row ends early");
    return this.value[this.#at++];
  }
}

/**
 * A submission head's stored value (its id is in the key).
 *
 * @example
 * ```ts
 * await kv.set(keys.submission(head.id), encodeHead(head));
 * ```
 */
export function encodeHead(head: SubmissionHead): Uint8Array {
  return new Writer().varint(head.version).text(head.formId).text(head.fingerprint)
    .time(head.createdAt).text(head.digest)
    .optText(head.latestDigest === head.digest ? null : head.latestDigest).bytes();
}

/**
 * The head of submission `id` from its stored value.
 *
 * @example
 * ```ts
 * const { value } = await kv.get<Uint8Array>(keys.submission(id));
 * const head = value ? decodeHead(id, value) : null;
 * ```
 */
export function decodeHead(id: string, value: Uint8Array): SubmissionHead {
  const r = new Reader(value, "submission");
  const version = r.varint();
  const formId = r.text();
  const fingerprint = r.text();
  const createdAt = r.time();
  const digest = r.text();
  const latestDigest = r.optText() ?? digest;
  return { id, formId, fingerprint, createdAt, version, digest, latestDigest };
}

/**
 * A queued version's stored value (its queue and position are in the key).
 *
 * @example
 * ```ts
 * w.set(keys.queue(fingerprint, seq), encodeQueued({ ...header, recipientPubkey: null, ref }));
 * ```
 */
export function encodeQueued(row: StoredQueueRow): Uint8Array {
  return new Writer().text(row.submissionId).varint(row.version).text(row.formId)
    .optText(row.recipientPubkey).optText(row.submitterId).time(row.receivedAt)
    .varint(row.ref.s).varint(row.ref.o).varint(row.ref.n).bytes();
}

/**
 * A queued version from its stored value.
 *
 * @example
 * ```ts
 * const row = decodeQueued(entry.value);
 * const pubkey = row.recipientPubkey ?? queueKey;
 * ```
 */
export function decodeQueued(value: Uint8Array): StoredQueueRow {
  const r = new Reader(value, "queue");
  const submissionId = r.text();
  const version = r.varint();
  const formId = r.text();
  const recipientPubkey = r.optText();
  const submitterId = r.optText();
  const receivedAt = r.time();
  const ref = { s: r.varint(), o: r.varint(), n: r.varint() };
  return { submissionId, version, formId, recipientPubkey, submitterId, receivedAt, ref };
}
