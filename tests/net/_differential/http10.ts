/**
 * Differential cases of HTTP/1.0 requests (RFC 9112 section 9.3 and appendix C.2.2):
 * persistence only when asked for, bodies by Content-Length.
 */
import { type Case, HOST, request } from "./case.ts";

/** A GET /c over HTTP/1.0 with `fields`. */
const get10 = (...fields: string[]): string => request("GET /c HTTP/1.0", fields);

/** The HTTP/1.0 cases. */
export const HTTP10: Case[] = [
  { name: "GET, no Host, closes", send: get10() },
  { name: "GET with Host, closes", send: get10(HOST) },
  { name: "keep-alive", send: get10("Connection: keep-alive") },
  { name: "Keep-Alive (case)", send: get10("Connection: Keep-Alive") },
  { name: "keep-alive among tokens", send: get10("Connection: x-a, keep-alive") },
  { name: "keep-alive with VT", send: get10("Connection: keep-alive\x0b") },
  { name: "keep-alive with NBSP", send: get10("Connection:\xa0keep-alive") },
  { name: "keep-alive and close", send: get10("Connection: keep-alive, close") },
  {
    name: "keep-alive twice, then a second 1.0 request",
    send: get10("Connection: keep-alive") + get10(),
  },
  {
    name: "POST with Content-Length, keep-alive",
    send: request("POST /c HTTP/1.0", ["Connection: keep-alive", "Content-Length: 5"], "hello"),
  },
  {
    name: "POST without a length, keep-alive",
    send: request("POST /c HTTP/1.0", ["Connection: keep-alive"]),
  },
  {
    name: "Expect: 100-continue (not for 1.0)",
    send: request(
      "POST /c HTTP/1.0",
      ["Connection: keep-alive", "Expect: 100-continue", "Content-Length: 5"],
      "hello",
    ),
  },
  { name: "HEAD, keep-alive", send: request("HEAD /c HTTP/1.0", ["Connection: keep-alive"]) },
];
