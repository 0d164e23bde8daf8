/**
 * Differential cases of message sequencing on one connection (RFC 9112 sections 2.2 and 9.3):
 * pipelined requests, what may come between two, HEAD, and heads and bodies arriving in
 * pieces.
 */
import { type Case, get, HELLO_CHUNKED, HOST, LF_CANARY, post, request, SMUGGLED } from "./case.ts";

/** The pipelining cases. */
export const PIPELINING: Case[] = [
  { name: "three GETs back to back", send: get([], "/a") + get([], "/b") + get([], "/c") },
  {
    name: "ten GETs back to back",
    send: Array.from({ length: 10 }, (_, i) => get([], `/r${i}`)).join(""),
  },
  {
    name: "GET, POST with a body, GET",
    send: get([], "/a") + post(["Content-Length: 5"], "hello") + get([], "/b"),
  },
  {
    name: "chunked POST then GET",
    send: post(["Transfer-Encoding: chunked"], HELLO_CHUNKED) + get(),
  },
  {
    name: "a request whose Content-Length takes in the next one",
    send: post([`Content-Length: ${SMUGGLED.length}`], SMUGGLED),
  },
  { name: "close on the first request", send: get(["Connection: close"], "/a") + get([], "/b") },
  {
    name: "a malformed request between two",
    send: get([], "/a") + get(["X A: 1"], "/b") + get([], "/c"),
  },
  { name: "an empty line between two", send: `${get([], "/a")}\r\n${get([], "/b")}` },
  { name: "two empty lines between two", send: `${get([], "/a")}\r\n\r\n${get([], "/b")}` },
  { name: "a bare LF between two", send: `${get([], "/a")}\n${get([], "/b")}` },
  { name: "a bare CR between two", send: `${get([], "/a")}\r${get([], "/b")}` },
  { name: "a line of spaces between two", send: `${get([], "/a")}  \r\n${get([], "/b")}` },
  { name: "junk between two", send: `${get([], "/a")}X\r\n${get([], "/b")}` },
  { name: "NUL between two", send: `${get([], "/a")}\x00${get([], "/b")}` },
  { name: "HEAD then GET", send: request("HEAD /a HTTP/1.1", [HOST]) + get([], "/b") },
  {
    name: "HEAD with a body",
    send: request("HEAD /a HTTP/1.1", [HOST, "Content-Length: 5"], "hello") + get([], "/b"),
  },
  {
    name: "HEAD with a chunked body",
    send: request("HEAD /a HTTP/1.1", [HOST, "Transfer-Encoding: chunked"], HELLO_CHUNKED),
  },
  { name: "head split between CR and LF", send: ["GET /c HTTP/1.1\r", "\nHost: t\r\n\r\n"] },
  { name: "head split inside the blank line", send: ["GET /c HTTP/1.1\r\nHost: t\r\n\r", "\n"] },
  { name: "head split before the blank line", send: ["GET /c HTTP/1.1\r\nHost: t\r\n", "\r\n"] },
  {
    name: "head in pieces of 4 bytes",
    send: get().match(/[^]{1,4}/g)!,
  },
  {
    name: "bare CR at the end of a piece, junk after",
    send: ["GET /c HTTP/1.1\r\nHost: t\r", "X\r\n\r\n"],
  },
  {
    name: "bare LF line ends split across pieces",
    send: ["GET /c HTTP/1.1\n", "Host: t\n", "\n"],
    canary: LF_CANARY,
  },
  {
    name: "chunked body in pieces",
    send: [post(["Transfer-Encoding: chunked"], "5\r\nhel"), "lo\r\n0\r", "\n\r\n"],
  },
  {
    name: "Content-Length body in pieces",
    send: [post(["Content-Length: 5"], "he"), "llo"],
  },
];
