/**
 * Writes one port adds to another port's atomic commit, on the same backend: for example the
 * relay's ack of an envelope, saved in the commit of its record (role `all`). Ports pass them
 * as opaque values; each backend takes only its own (src/store/kv/write_part.ts,
 * src/store/pg/write_part.ts).
 *
 * @module
 */

/** A piece of an atomic write, made by one port and committed by another. */
export interface WritePart {
  /** The backend that made it ("kv"); another backend refuses it. */
  readonly backend: string;
}
