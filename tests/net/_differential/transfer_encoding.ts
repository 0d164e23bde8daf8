/**
 * Differential cases of Transfer-Encoding (RFC 9112 sections 6.1 and 6.3): its values,
 * obfuscations of its name and value (after the mutations of smuggling scanners), with
 * Content-Length, and in HTTP/1.0. Each sends a chunked body of "hello": a server that
 * takes the field for chunked reads "hello"; one that does not reads the chunks as the next
 * request.
 */
import { type Case, HELLO_CHUNKED, HOST, post, request, SMUGGLED } from "./case.ts";

/** A POST whose body is "hello" chunked, with the field line(s) `fields`. */
const chunked = (...fields: string[]): string => post(fields, HELLO_CHUNKED);

/** A body that ends a chunked message early and hides a request behind it. */
const HIDING = `0\r\n\r\n${SMUGGLED}`;

/** Both framings at once: Content-Length covering `HIDING`, and the field line(s) `fields`. */
const both = (...fields: string[]): string =>
  post([`Content-Length: ${HIDING.length}`, ...fields], HIDING);

/** Sealpost decodes no transfer coding but chunked. */
const CODINGS = "no transfer coding but chunked is decoded: others are refused (501)";

/** The Transfer-Encoding cases. */
export const TRANSFER_ENCODING: Case[] = [
  { name: "chunked", send: chunked("Transfer-Encoding: chunked") },
  { name: "Chunked (case)", send: chunked("Transfer-Encoding: Chunked") },
  { name: "name and value in capitals", send: chunked("TRANSFER-ENCODING: CHUNKED") },
  { name: "name in lowercase", send: chunked("transfer-encoding: chunked") },
  { name: "leading spaces", send: chunked("Transfer-Encoding:   chunked") },
  { name: "trailing space", send: chunked("Transfer-Encoding: chunked ") },
  { name: "tab before", send: chunked("Transfer-Encoding:\tchunked") },
  { name: "tab after", send: chunked("Transfer-Encoding: chunked\t") },
  { name: "chunked, chunked", send: chunked("Transfer-Encoding: chunked, chunked") },
  {
    name: "chunked in two fields",
    send: chunked("Transfer-Encoding: chunked", "Transfer-Encoding: chunked"),
  },
  { name: "gzip, chunked", send: chunked("Transfer-Encoding: gzip, chunked"), stricter: CODINGS },
  {
    name: "gzip then chunked in two fields",
    send: chunked("Transfer-Encoding: gzip", "Transfer-Encoding: chunked"),
    stricter: CODINGS,
  },
  {
    name: "unknown coding before chunked",
    send: chunked("Transfer-Encoding: cow, chunked"),
    stricter: CODINGS,
  },
  {
    name: "identity, chunked",
    send: chunked("Transfer-Encoding: identity, chunked"),
    stricter: CODINGS,
  },
  { name: "chunked, gzip", send: chunked("Transfer-Encoding: chunked, gzip") },
  {
    name: "chunked then gzip in two fields",
    send: chunked("Transfer-Encoding: chunked", "Transfer-Encoding: gzip"),
  },
  { name: "identity", send: chunked("Transfer-Encoding: identity") },
  { name: "gzip alone", send: chunked("Transfer-Encoding: gzip") },
  { name: "empty value", send: chunked("Transfer-Encoding:") },
  { name: "chunkedchunked", send: chunked("Transfer-Encoding: chunkedchunked") },
  { name: "chunk (a prefix)", send: chunked("Transfer-Encoding: chunk") },
  { name: "xchunked", send: chunked("Transfer-Encoding: xchunked") },
  { name: 'quoted "chunked"', send: chunked('Transfer-Encoding: "chunked"') },
  { name: "quoted 'chunked'", send: chunked("Transfer-Encoding: 'chunked'") },
  { name: "chunked with a parameter", send: chunked("Transfer-Encoding: chunked;q=1") },
  { name: "ch unked", send: chunked("Transfer-Encoding: ch unked") },
  {
    name: "leading comma ,chunked",
    send: chunked("Transfer-Encoding: ,chunked"),
    stricter: "Transfer-Encoding is taken as exactly `chunked`, without empty list elements",
  },
  { name: "trailing comma chunked,", send: chunked("Transfer-Encoding: chunked,") },
  {
    name: "empty list element chunked, , chunked",
    send: chunked("Transfer-Encoding: chunked, , chunked"),
  },
  { name: "VT after chunked", send: chunked("Transfer-Encoding: chunked\x0b") },
  { name: "VT before chunked", send: chunked("Transfer-Encoding:\x0bchunked") },
  { name: "FF after chunked", send: chunked("Transfer-Encoding: chunked\x0c") },
  { name: "FF before chunked", send: chunked("Transfer-Encoding:\x0cchunked") },
  { name: "NBSP before chunked", send: chunked("Transfer-Encoding:\xa0chunked") },
  { name: "NBSP after chunked", send: chunked("Transfer-Encoding: chunked\xa0") },
  { name: "NUL after chunked", send: chunked("Transfer-Encoding: chunked\x00") },
  { name: "bare CR after chunked", send: chunked("Transfer-Encoding: chunked\r") },
  { name: "0xFF before chunked", send: chunked("Transfer-Encoding:\xffchunked") },
  { name: "space before the colon", send: chunked("Transfer-Encoding : chunked") },
  { name: "tab before the colon", send: chunked("Transfer-Encoding\t: chunked") },
  { name: "name with an underscore", send: chunked("Transfer_Encoding: chunked") },
  { name: "name with a space", send: chunked("Transfer Encoding: chunked") },
  { name: "name with a bare CR", send: chunked("Transfer\r-Encoding: chunked") },
  {
    name: "folded into the previous field",
    send: chunked("X-A: 1\r\n Transfer-Encoding: chunked"),
  },
  { name: "value on a folded line", send: chunked("Transfer-Encoding:\r\n chunked") },
  { name: "after a bare LF in another field", send: chunked("X-A: 1\nTransfer-Encoding: chunked") },
  { name: "after a bare CR in another field", send: chunked("X-A: 1\rTransfer-Encoding: chunked") },
  { name: "Content-Encoding: chunked (not framing)", send: chunked("Content-Encoding: chunked") },
  { name: "TE: chunked (not framing)", send: chunked("TE: chunked") },
  {
    name: "named in Connection",
    send: chunked("Connection: Transfer-Encoding", "Transfer-Encoding: chunked"),
  },
  { name: "with Content-Length, CL first", send: both("Transfer-Encoding: chunked") },
  {
    name: "with Content-Length, TE first",
    send: post(["Transfer-Encoding: chunked", `Content-Length: ${HIDING.length}`], HIDING),
  },
  {
    name: "with Content-Length 0",
    send: chunked("Content-Length: 0", "Transfer-Encoding: chunked"),
  },
  { name: "with Content-Length, TE with VT", send: both("Transfer-Encoding: chunked\x0b") },
  { name: "with Content-Length, TE named with a space", send: both("Transfer-Encoding : chunked") },
  { name: "with Content-Length, TE folded", send: both("X-A: 1\r\n Transfer-Encoding: chunked") },
  { name: "with Content-Length, TE identity", send: both("Transfer-Encoding: identity") },
  { name: "with Content-Length, TE gzip", send: both("Transfer-Encoding: gzip") },
  { name: "with Content-Length, TE empty", send: both("Transfer-Encoding:") },
  { name: "with Content-Length, TE with NBSP", send: both("Transfer-Encoding:\xa0chunked") },
  {
    name: "on a GET",
    send: request("GET /c HTTP/1.1", [HOST, "Transfer-Encoding: chunked"], HELLO_CHUNKED),
  },
  {
    name: "in HTTP/1.0",
    send: request("POST /c HTTP/1.0", [HOST, "Transfer-Encoding: chunked"], HELLO_CHUNKED),
    stricter: "Transfer-Encoding in HTTP/1.0 is faulty framing (RFC 9112 section 6.1): 400, close",
  },
  {
    name: "in HTTP/1.0, keep-alive",
    send: request(
      "POST /c HTTP/1.0",
      [HOST, "Connection: keep-alive", "Transfer-Encoding: chunked"],
      HELLO_CHUNKED,
    ),
    stricter: "Transfer-Encoding in HTTP/1.0 is faulty framing (RFC 9112 section 6.1): 400, close",
  },
  {
    name: "in HTTP/1.0 with Content-Length",
    send: request(
      "POST /c HTTP/1.0",
      [
        HOST,
        "Connection: keep-alive",
        `Content-Length: ${HIDING.length}`,
        "Transfer-Encoding: chunked",
      ],
      HIDING,
    ),
  },
];
