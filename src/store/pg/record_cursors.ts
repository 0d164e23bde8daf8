/**
 * Page cursors of the PostgreSQL records store: the position after which a list goes on,
 * tagged with the list it belongs to, in base64url. A cursor of another list, or a changed
 * one, fails its tag and is an {@link InvalidCursorError}.
 *
 * @module
 */
import { InvalidCursorError } from "../ports/records.ts";

/** Bytes of the tag: the start of SHA-256 over the list's name and the position. */
const TAG_BYTES = 6;

async function tagOf(list: readonly string[], position: string): Promise<Uint8Array> {
  const text = `${JSON.stringify(list)}\u0000${position}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return new Uint8Array(digest, 0, TAG_BYTES);
}

/**
 * The cursor of `position` (the last key a page showed) in `list` (e.g. `["records", formId]`).
 *
 * @example
 * ```ts
 * const cursor = await encodeCursor(["records", "f1"], ["r9"]); // URL-safe text
 * await decodeCursor(["records", "f1"], cursor); // ["r9"]
 * ```
 */
export async function encodeCursor(list: readonly string[], position: string[]): Promise<string> {
  const payload = JSON.stringify(position);
  const bytes = new Uint8Array([
    ...await tagOf(list, payload),
    ...new TextEncoder().encode(payload),
  ]);
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** The position `cursor` holds, when it is one of `list`'s own; else {@link InvalidCursorError}. */
export async function decodeCursor(list: readonly string[], cursor: string): Promise<string[]> {
  const invalid = new InvalidCursorError("Not a cursor of this list");
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(cursor, { alphabet: "base64url" });
  } catch {
    throw invalid;
  }
  let payload: string;
  try {
    payload = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(TAG_BYTES));
  } catch {
    throw invalid;
  }
  const tag = await tagOf(list, payload);
  if (bytes.length <= TAG_BYTES || tag.some((byte, i) => byte !== bytes[i])) throw invalid;
  return JSON.parse(payload) as string[];
}
