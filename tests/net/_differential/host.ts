/**
 * Differential cases of the Host field (RFC 9112 section 3.2): missing, repeated, empty,
 * with a port, IPv6 literals and odd characters.
 */
import { type Case, request } from "./case.ts";

/** A GET /c over HTTP/1.1 with `fields`. */
const get11 = (...fields: string[]): string => request("GET /c HTTP/1.1", fields);

/** More than one Host is refused: RFC 9112 section 3.2 requires a 400. */
const REPEATED = "a request with more than one Host is answered 400 (RFC 9112 section 3.2)";

/** A Host that is not a host (with an optional port) is refused (issue 26). */
const INVALID = "a Host that is not a valid host with an optional port is answered 400";

/** The Host cases. */
export const HOST_CASES: Case[] = [
  { name: "missing in HTTP/1.1", send: get11("Accept: */*") },
  { name: "missing in HTTP/1.0", send: request("GET /c HTTP/1.0", ["Connection: keep-alive"]) },
  { name: "with a port", send: get11("Host: t:8080") },
  { name: "IPv4 literal", send: get11("Host: 127.0.0.1:80") },
  { name: "IPv6 literal with a port", send: get11("Host: [::1]:8080") },
  { name: "IPv6 literal without brackets", send: get11("Host: ::1"), stricter: INVALID },
  { name: "empty in HTTP/1.1", send: get11("Host:"), stricter: INVALID },
  { name: "empty with spaces", send: get11("Host:  "), stricter: INVALID },
  { name: "lowercase field name", send: get11("host: t") },
  { name: "uppercase field name", send: get11("HOST: t") },
  { name: "with userinfo", send: get11("Host: u@t"), stricter: INVALID },
  { name: "with a slash and a path", send: get11("Host: t/x"), stricter: INVALID },
  { name: "with an inner space", send: get11("Host: t x"), stricter: INVALID },
  { name: "with a port that is not a number", send: get11("Host: t:x"), stricter: INVALID },
  { name: "with a port of 6 digits", send: get11("Host: t:123456"), stricter: INVALID },
  { name: "with a NUL", send: get11("Host: t\x00x") },
  { name: "with a raw byte 0xE9", send: get11("Host: t\xe9"), stricter: INVALID },
  { name: "with a raw byte 0x80", send: get11("Host: t\x80"), stricter: INVALID },
  { name: "with a comma (a list)", send: get11("Host: a, b"), stricter: INVALID },
  { name: "repeated, same value", send: get11("Host: t", "Host: t"), stricter: REPEATED },
  { name: "repeated, different values", send: get11("Host: a", "Host: b"), stricter: REPEATED },
  { name: "repeated, one empty", send: get11("Host:", "Host: t"), stricter: REPEATED },
  {
    name: "absolute form with another authority",
    send: request("GET http://t/c HTTP/1.1", ["Host: other"]),
  },
  { name: "obs-fold of Host", send: get11("Host: t\r\n x") },
  { name: "space before the colon", send: get11("Host : t") },
];
