/**
 * Differential cases of the chunked coding (RFC 9112 section 7.1): chunk sizes, extensions,
 * the CRLF after chunk data and the last chunk, read by the handler (a body error surfaces
 * after the head was dispatched) or left to the server to discard.
 */
import { type Case, post, SMUGGLED, UNREAD_BODY } from "./case.ts";

/** A chunked POST with `body` as the chunked body's bytes. */
const chunks = (body: string): string => post(["Transfer-Encoding: chunked"], body);

/** The chunk syntax cases, the handler reading each body. */
const SYNTAX: Case[] = [
  { name: "lowercase size a", send: chunks("a\r\n0123456789\r\n0\r\n\r\n") },
  { name: "uppercase size A", send: chunks("A\r\n0123456789\r\n0\r\n\r\n") },
  { name: "two chunks", send: chunks("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n") },
  { name: "size with leading zeros 0005", send: chunks("0005\r\nhello\r\n0\r\n\r\n") },
  { name: "last chunk 000", send: chunks("5\r\nhello\r\n000\r\n\r\n") },
  {
    name: "size of 13 digits with leading zeros",
    send: chunks("0000000000005\r\nhello\r\n0\r\n\r\n"),
  },
  { name: "size of 12 digits (data never sent)", send: chunks("ffffffffffff\r\nhello") },
  {
    name: "size of 13 digits (data never sent)",
    send: chunks("fffffffffffff\r\nhello"),
  },
  { name: "size past 2^64", send: chunks("10000000000000000\r\nhello\r\n0\r\n\r\n") },
  { name: "empty size line", send: chunks("\r\nhello\r\n0\r\n\r\n") },
  { name: "size then a letter 5g", send: chunks("5g\r\nhello\r\n0\r\n\r\n") },
  { name: "size then a space and junk", send: chunks("5 x\r\nhello\r\n0\r\n\r\n") },
  { name: "space before the size", send: chunks(" 5\r\nhello\r\n0\r\n\r\n") },
  { name: "space after the size", send: chunks("5 \r\nhello\r\n0\r\n\r\n") },
  { name: "tab after the size", send: chunks("5\t\r\nhello\r\n0\r\n\r\n") },
  { name: "negative size", send: chunks("-5\r\nhello\r\n0\r\n\r\n") },
  { name: "plus sign", send: chunks("+5\r\nhello\r\n0\r\n\r\n") },
  { name: "0x prefix", send: chunks("0x5\r\nhello\r\n0\r\n\r\n") },
  { name: "size line ended by a bare LF", send: chunks("5\nhello\r\n0\r\n\r\n") },
  { name: "size line ended by a bare CR", send: chunks("5\rhello\r\n0\r\n\r\n") },
  { name: "data followed by the next size (no CRLF)", send: chunks("5\r\nhello0\r\n\r\n") },
  { name: "data followed by junk, then a valid end", send: chunks("5\r\nhelloXX\r\n0\r\n\r\n") },
  { name: "data followed by a bare LF", send: chunks("5\r\nhello\n0\r\n\r\n") },
  { name: "data followed by a bare CR", send: chunks("5\r\nhello\r0\r\n\r\n") },
  { name: "data shorter than its size", send: chunks("6\r\nhello\r\n0\r\n\r\n") },
  { name: "data longer than its size", send: chunks("4\r\nhello\r\n0\r\n\r\n") },
  { name: "last chunk ended by a bare LF", send: chunks("5\r\nhello\r\n0\n\r\n") },
  { name: "final CRLF as a bare LF", send: chunks("5\r\nhello\r\n0\r\n\n") },
  { name: "no last chunk", send: chunks("5\r\nhello\r\n") },
  { name: "last chunk without the final CRLF", send: chunks("5\r\nhello\r\n0\r\n") },
  { name: "a request hidden after the last chunk", send: chunks(`0\r\n\r\n${SMUGGLED}`) },
  { name: "one chunk of 70000 bytes", send: chunks(`11170\r\n${"c".repeat(70_000)}\r\n0\r\n\r\n`) },
  { name: "1000 chunks of one byte", send: chunks(`${"1\r\nx\r\n".repeat(1000)}0\r\n\r\n`) },
];

/** Chunk extensions (RFC 9112 section 7.1.1). */
const EXTENSIONS: Case[] = [
  { name: "extension name", send: chunks("5;a\r\nhello\r\n0\r\n\r\n") },
  { name: "extension with a token value", send: chunks("5;a=b\r\nhello\r\n0;c=d\r\n\r\n") },
  { name: "extension with a quoted value", send: chunks('5;a="b c"\r\nhello\r\n0\r\n\r\n') },
  { name: "quoted value with an escaped quote", send: chunks('5;a="b\\"c"\r\nhello\r\n0\r\n\r\n') },
  { name: "quoted value with a semicolon", send: chunks('5;a="b;c"\r\nhello\r\n0\r\n\r\n') },
  { name: "quoted value with obs-text", send: chunks('5;a="\xe9"\r\nhello\r\n0\r\n\r\n') },
  { name: "several extensions", send: chunks("5;a;b=c;d\r\nhello\r\n0\r\n\r\n") },
  { name: "space before the semicolon", send: chunks("5 ;a\r\nhello\r\n0\r\n\r\n") },
  { name: "tab before the semicolon", send: chunks("5\t;a\r\nhello\r\n0\r\n\r\n") },
  { name: "space after the semicolon", send: chunks("5; a\r\nhello\r\n0\r\n\r\n") },
  { name: "spaces around =", send: chunks("5;a = b\r\nhello\r\n0\r\n\r\n") },
  { name: "semicolon and nothing", send: chunks("5;\r\nhello\r\n0\r\n\r\n") },
  {
    name: "empty name =b",
    send: chunks("5;=b\r\nhello\r\n0\r\n\r\n"),
    stricter: "a chunk extension's name is a token (RFC 9112 section 7.1.1)",
  },
  { name: "name with a space inside", send: chunks("5;a b\r\nhello\r\n0\r\n\r\n") },
  { name: "token value with a space inside", send: chunks("5;a=b c\r\nhello\r\n0\r\n\r\n") },
  { name: "name with @", send: chunks("5;a@b\r\nhello\r\n0\r\n\r\n") },
  { name: "unterminated quoted value", send: chunks('5;a="bc\r\nhello\r\n0\r\n\r\n') },
  { name: "value with \\x01", send: chunks("5;a=\x01\r\nhello\r\n0\r\n\r\n") },
  { name: "value with DEL", send: chunks("5;a=\x7f\r\nhello\r\n0\r\n\r\n") },
  { name: "unquoted value with a raw byte 0xFF", send: chunks("5;a=\xff\r\nhello\r\n0\r\n\r\n") },
  { name: "quoted value with NUL", send: chunks('5;a="\x00"\r\nhello\r\n0\r\n\r\n') },
  { name: "bare CR inside", send: chunks("5;a\rb\r\nhello\r\n0\r\n\r\n") },
  { name: "bare LF inside", send: chunks("5;a\nb\r\nhello\r\n0\r\n\r\n") },
  {
    name: "extension of 3000 bytes",
    send: chunks(`5;a=${"e".repeat(3000)}\r\nhello\r\n0\r\n\r\n`),
  },
  {
    name: "extension of 5000 bytes",
    send: chunks(`5;a=${"e".repeat(5000)}\r\nhello\r\n0\r\n\r\n`),
    stricter: "a chunk-size line (extensions included) is at most 4 KiB",
  },
  {
    name: "extension of 20000 bytes",
    send: chunks(`5;a=${"e".repeat(20_000)}\r\nhello\r\n0\r\n\r\n`),
  },
];

/** Trailer sections (RFC 9112 section 7.1.2): field syntax as in the head. */
const TRAILERS: Case[] = [
  { name: "one trailer field", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n") },
  { name: "two trailer fields", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\r\nX-U: 2\r\n\r\n") },
  { name: "trailer Content-Length", send: chunks("5\r\nhello\r\n0\r\nContent-Length: 9\r\n\r\n") },
  {
    name: "trailer Transfer-Encoding",
    send: chunks("5\r\nhello\r\n0\r\nTransfer-Encoding: chunked\r\n\r\n"),
  },
  { name: "trailer without a colon", send: chunks("5\r\nhello\r\n0\r\nX-T\r\n\r\n") },
  { name: "trailer name with a space", send: chunks("5\r\nhello\r\n0\r\nX T: 1\r\n\r\n") },
  {
    name: "trailer with a space before the colon",
    send: chunks("5\r\nhello\r\n0\r\nX-T : 1\r\n\r\n"),
  },
  { name: "trailer with an empty name", send: chunks("5\r\nhello\r\n0\r\n: 1\r\n\r\n") },
  { name: "trailer obs-fold", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\r\n 2\r\n\r\n") },
  {
    name: "trailers separated by a bare LF",
    send: chunks("5\r\nhello\r\n0\r\nX-T: 1\nX-U: 2\r\n\r\n"),
  },
  { name: "trailer with a bare CR", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\r2\r\n\r\n") },
  { name: "trailer with NUL", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\x00\r\n\r\n") },
  { name: "trailer with VT", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\x0b\r\n\r\n") },
  { name: "trailer line ended by a bare LF", send: chunks("5\r\nhello\r\n0\r\nX-T: 1\n\r\n") },
  { name: "a request line as a trailer", send: chunks(`5\r\nhello\r\n0\r\n${SMUGGLED}`) },
  {
    name: "trailers of 20000 bytes",
    send: chunks(`5\r\nhello\r\n0\r\nX-T: ${"t".repeat(20_000)}\r\n\r\n`),
  },
];

/** Bodies the handler leaves unread: the server discards them, or closes. */
const IGNORED: Case[] = [
  { name: "valid body", send: chunks("5\r\nhello\r\n0\r\n\r\n") },
  { name: "size with junk", send: chunks("5g\r\nhello\r\n0\r\n\r\n") },
  { name: "data followed by junk, then a valid end", send: chunks("5\r\nhelloXX\r\n0\r\n\r\n") },
  { name: "trailer name with a space", send: chunks("5\r\nhello\r\n0\r\nX T: 1\r\n\r\n") },
  { name: "extension with a bare CR", send: chunks("5;a\rb\r\nhello\r\n0\r\n\r\n") },
  { name: "last chunk without the final CRLF", send: chunks("5\r\nhello\r\n0\r\n") },
  {
    name: "body of 70000 bytes",
    send: chunks(`11170\r\n${"c".repeat(70_000)}\r\n0\r\n\r\n`),
    stricter: UNREAD_BODY,
  },
].map((c) => ({ ...c, name: `ignored: ${c.name}`, body: "ignore" as const }));

/** The chunked coding cases. */
export const CHUNKED: Case[] = [
  ...SYNTAX,
  ...EXTENSIONS.map((c) => ({ ...c, name: `extension: ${c.name}` })),
  ...TRAILERS,
  ...IGNORED,
];
