/**
 * Differential cases of `Expect: 100-continue` (RFC 9110 section 10.1.1): bodies sent at once
 * or after a pause, chunked or not, read or ignored, and other expectations.
 */
import { type Case, HELLO_CHUNKED, post } from "./case.ts";

const CONTINUE = "Expect: 100-continue";

/** The Expect cases. */
export const EXPECT: Case[] = [
  {
    name: "Content-Length body sent at once",
    send: post([CONTINUE, "Content-Length: 5"], "hello"),
  },
  {
    name: "Content-Length body sent after a pause",
    send: [post([CONTINUE, "Content-Length: 5"]), "hello"],
  },
  {
    name: "chunked body sent at once",
    send: post([CONTINUE, "Transfer-Encoding: chunked"], HELLO_CHUNKED),
  },
  {
    name: "chunked body sent after a pause",
    send: [post([CONTINUE, "Transfer-Encoding: chunked"]), HELLO_CHUNKED],
  },
  {
    name: "Content-Length body, handler ignores it",
    send: post([CONTINUE, "Content-Length: 5"], "hello"),
    body: "ignore",
  },
  {
    name: "chunked body, handler ignores it",
    send: post([CONTINUE, "Transfer-Encoding: chunked"], HELLO_CHUNKED),
    body: "ignore",
    stricter: "a body that waits for 100 Continue and that the handler never reads is never " +
      "asked for: the connection closes after the answer",
  },
  {
    name: "100-Continue (case)",
    send: post(["Expect: 100-Continue", "Content-Length: 5"], "hello"),
  },
  { name: "on a request without a body", send: post([CONTINUE]) },
  { name: "an unknown expectation", send: post(["Expect: x-y", "Content-Length: 5"], "hello") },
  {
    name: "100-continue with VT",
    send: post(["Expect: 100-continue\x0b", "Content-Length: 5"], "hello"),
  },
];
