/**
 * A case of the differential suite (raw bytes sent to both servers) and the builders the
 * case tables spell requests with.
 */
import type { BodyMode } from "./recorder.ts";

/** One byte sequence sent to llhttp and to Sealpost alike. */
export interface Case {
  /** Names the case; unique across the suite. */
  name: string;
  /**
   * The bytes (each character is one byte, `\xNN` for raw ones), in one write; several parts
   * are written apart, with a short pause between two.
   */
  send: string | string[];
  /** How the handler treats request bodies: "read" (the default) or "ignore". */
  body?: BodyMode;
  /** Why Sealpost refuses what llhttp accepts, where it does so on purpose. */
  stricter?: string;
  /** The request appended after the case's bytes, when not {@link CANARY} (bare LF heads). */
  canary?: string;
}

/**
 * Appended to every case: whether and when it is served tells how many requests each server
 * parsed in the case's bytes. It asks to close, so that a case that leaves both parsers in
 * step ends at once.
 */
export const CANARY = "GET /canary HTTP/1.1\r\nHost: canary\r\nConnection: close\r\n\r\n";

/** The canary with bare LF line ends, for heads that use them throughout. */
export const LF_CANARY = "GET /canary HTTP/1.1\nHost: canary\nConnection: close\n\n";

/** The Host field of the cases. */
export const HOST = "Host: t";

/** A request: its request line, header fields (each ended by CRLF), a blank line and `body`. */
export function request(line: string, fields: string[], body = ""): string {
  return `${line}\r\n${fields.map((field) => `${field}\r\n`).join("")}\r\n${body}`;
}

/** `GET /c HTTP/1.1` with Host and `fields`. */
export function get(fields: string[] = [], path = "/c"): string {
  return request(`GET ${path} HTTP/1.1`, [HOST, ...fields]);
}

/** `POST /c HTTP/1.1` with Host, `fields` and `body`. */
export function post(fields: string[], body = ""): string {
  return request("POST /c HTTP/1.1", [HOST, ...fields], body);
}

/** A request hidden in a body, to be found if a server frames that body differently. */
export const SMUGGLED = request("GET /smuggled HTTP/1.1", [HOST]);

/** A chunked body of "hello". */
export const HELLO_CHUNKED = "5\r\nhello\r\n0\r\n\r\n";

/** Why Sealpost closes where Node discards a large unread body. */
export const UNREAD_BODY =
  "a body the handler leaves unread is discarded up to 64 KiB, past that the connection closes";
