/**
 * Differential cases of Content-Length framing (RFC 9112 section 6.3, RFC 9110 section 8.6):
 * repeated and listed values, signs, zeros, sizes, non-digits, whitespace, and bodies shorter
 * or longer than declared.
 */
import { type Case, get, post, SMUGGLED, UNREAD_BODY } from "./case.ts";

/** A POST of "hello" framed by the Content-Length field line(s) `fields`. */
const hello = (...fields: string[]): string => post(fields, "hello");

/** The Content-Length cases. */
export const CONTENT_LENGTH: Case[] = [
  { name: "5, body of 5", send: hello("Content-Length: 5") },
  { name: "0, no body", send: post(["Content-Length: 0"]) },
  {
    name: "with Transfer-Encoding, a classic CL.TE probe",
    send: post(["Content-Length: 6", "Transfer-Encoding: chunked"], "0\r\n\r\nG"),
  },
  { name: "no field, no body", send: post([]) },
  { name: "leading zeros 005", send: hello("Content-Length: 005") },
  { name: "all zeros 000", send: post(["Content-Length: 000"]) },
  { name: "no space after the colon", send: hello("Content-Length:5") },
  { name: "spaces around", send: hello("Content-Length:   5   ") },
  { name: "tab before the digits", send: hello("Content-Length:\t5") },
  { name: "tab after the digits", send: hello("Content-Length: 5\t") },
  { name: "lowercase field name", send: hello("content-length: 5") },
  { name: "repeated, same value", send: hello("Content-Length: 5", "Content-Length: 5") },
  { name: "repeated, different values", send: hello("Content-Length: 5", "Content-Length: 6") },
  { name: "repeated, second one empty", send: hello("Content-Length: 5", "Content-Length:") },
  { name: "list of the same value 5, 5", send: hello("Content-Length: 5, 5") },
  { name: "list without a space 5,5", send: hello("Content-Length: 5,5") },
  { name: "list of different values 5, 6", send: hello("Content-Length: 5, 6") },
  { name: "list with an empty element 5,", send: hello("Content-Length: 5,") },
  { name: "two numbers with a space 5 5", send: hello("Content-Length: 5 5") },
  { name: "plus sign", send: hello("Content-Length: +5") },
  { name: "minus sign", send: hello("Content-Length: -5") },
  { name: "minus zero", send: post(["Content-Length: -0"]) },
  { name: "hexadecimal 0x5", send: hello("Content-Length: 0x5") },
  { name: "decimal point 5.0", send: hello("Content-Length: 5.0") },
  { name: "exponent 5e0", send: hello("Content-Length: 5e0") },
  { name: "a word", send: hello("Content-Length: five") },
  { name: "digits then a letter 5a", send: hello("Content-Length: 5a") },
  { name: "empty", send: hello("Content-Length:") },
  { name: 'quoted "5"', send: hello('Content-Length: "5"') },
  { name: "with VT before the digits", send: hello("Content-Length:\x0b5") },
  { name: "with VT after the digits", send: hello("Content-Length: 5\x0b") },
  { name: "with FF before the digits", send: hello("Content-Length:\x0c5") },
  { name: "with NBSP before the digits", send: hello("Content-Length:\xa05") },
  { name: "with a bare CR after the digits", send: hello("Content-Length: 5\r") },
  { name: "with NUL after the digits", send: hello("Content-Length: 5\x00") },
  { name: "with full-width digit five (UTF-8)", send: hello("Content-Length: \xef\xbc\x95") },
  { name: "space before the colon", send: hello("Content-Length : 5") },
  { name: "obs-fold of the value", send: hello("Content-Length:\r\n 5") },
  { name: "obs-fold after the value", send: hello("Content-Length: 5\r\n 6") },
  { name: "name with an underscore", send: hello("Content_Length: 5") },
  { name: "15 digits (body never sent)", send: hello("Content-Length: 999999999999999") },
  {
    name: "16 digits (body never sent)",
    send: hello("Content-Length: 1000000000000000"),
    stricter: "a Content-Length of 16 digits or more is refused, past any body it could frame",
  },
  { name: "past 2^64", send: hello("Content-Length: 18446744073709551616") },
  { name: "40 digits", send: hello(`Content-Length: ${"9".repeat(40)}`) },
  { name: "body shorter than declared", send: post(["Content-Length: 20"], "hello") },
  {
    name: "body shorter than declared, body ignored",
    send: post(["Content-Length: 20"], "hello"),
    body: "ignore",
  },
  { name: "body longer than declared", send: post(["Content-Length: 3"], "hello") },
  { name: "0 then a pipelined request", send: post(["Content-Length: 0"], SMUGGLED) },
  {
    name: "body of every byte value",
    send: post(["Content-Length: 256"], String.fromCharCode(...Array(256).keys())),
  },
  { name: "body of 70000 bytes", send: post(["Content-Length: 70000"], "b".repeat(70_000)) },
  {
    name: "body of 70000 bytes ignored by the handler",
    send: post(["Content-Length: 70000"], "b".repeat(70_000)),
    body: "ignore",
    stricter: UNREAD_BODY,
  },
  {
    name: "body of 5 ignored by the handler",
    send: hello("Content-Length: 5"),
    body: "ignore",
  },
  { name: "on a GET, with its body", send: get(["Content-Length: 5"]) + "hello" },
  {
    name: "on a GET, a request as its body",
    send: get([`Content-Length: ${SMUGGLED.length}`]) + SMUGGLED,
  },
];
