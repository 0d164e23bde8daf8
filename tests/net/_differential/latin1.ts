/**
 * Bytes as text one character per byte (ISO-8859-1): the differential cases spell raw bytes
 * as `\xNN`. (`TextDecoder("latin1")` is windows-1252, which maps 0x80-0x9F elsewhere.)
 */

/** Each character of `text` as one byte. */
export function latin1Bytes(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Each byte of `bytes` as one character. */
export function latin1Text(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.length; at += 8192) {
    text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  }
  return text;
}
