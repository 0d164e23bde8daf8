/**
 * Differential cases of the request line (RFC 9112 section 3): methods, request targets
 * (origin, absolute, authority and asterisk forms, raw bytes), versions and spacing.
 */
import { type Case, get, HOST, request } from "./case.ts";

/** Methods outside the ones the service serves are answered 501 before anything else is read. */
const METHODS =
  "methods the service does not serve (GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH) " +
  "are answered 501 (RFC 9110 section 9.1)";
/** `line` as a request line, with Host. */
const line = (text: string): string => request(text, [HOST]);

/** Sealpost serves HTTP/1.0 and HTTP/1.1 only. */
const VERSIONS = "only HTTP/1.0 and HTTP/1.1 are served (505 for other versions, 400 otherwise)";

/** Sealpost splits the request line at single spaces. */
const SPACING = "a request line is three parts between single spaces (RFC 9112 section 3)";

/** The request line cases. */
export const REQUEST_LINE: Case[] = [
  { name: "GET in origin form", send: get() },
  { name: "GET with a query", send: line("GET /c?a=1&b=%20 HTTP/1.1") },
  { name: "DELETE", send: line("DELETE /c HTTP/1.1") },
  { name: "OPTIONS", send: line("OPTIONS /c HTTP/1.1") },
  {
    name: "PATCH with Content-Length 0",
    send: request("PATCH /c HTTP/1.1", [HOST, "Content-Length: 0"]),
  },
  {
    name: "TRACE",
    send: line("TRACE /c HTTP/1.1"),
    stricter: METHODS,
  },
  { name: "PROPFIND (WebDAV)", send: line("PROPFIND /c HTTP/1.1"), stricter: METHODS },
  { name: "M-SEARCH (SSDP)", send: line("M-SEARCH /c HTTP/1.1"), stricter: METHODS },
  { name: "PURGE", send: line("PURGE /c HTTP/1.1"), stricter: METHODS },
  { name: "QUERY", send: line("QUERY /c HTTP/1.1"), stricter: METHODS },
  { name: "unknown method token FOO", send: line("FOO /c HTTP/1.1") },
  { name: "lowercase method get", send: line("get /c HTTP/1.1") },
  { name: "method GETX (a known method's prefix)", send: line("GETX /c HTTP/1.1") },
  { name: "method with a delimiter G(T", send: line("G(T /c HTTP/1.1") },
  { name: "RTSP method ANNOUNCE over HTTP", send: line("ANNOUNCE /c HTTP/1.1") },
  { name: "PRI (the HTTP/2 preface)", send: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" },
  { name: "CONNECT in authority form", send: line("CONNECT t:443 HTTP/1.1") },
  { name: "GET in authority form", send: line("GET t:80 HTTP/1.1") },
  { name: "OPTIONS *", send: line("OPTIONS * HTTP/1.1") },
  {
    name: "GET *",
    send: line("GET * HTTP/1.1"),
    stricter: "the asterisk form is for OPTIONS only (RFC 9112 section 3.2.4)",
  },
  { name: "absolute form http", send: line("GET http://t/c HTTP/1.1") },
  { name: "absolute form with port and query", send: line("GET http://t:8080/c?q=1 HTTP/1.1") },
  { name: "absolute form https", send: line("GET https://t/c HTTP/1.1") },
  { name: "absolute form, uppercase scheme", send: line("GET HTTP://T/c HTTP/1.1") },
  { name: "absolute form without a path", send: line("GET http://t HTTP/1.1") },
  { name: "absolute form with userinfo", send: line("GET http://u:p@t/c HTTP/1.1") },
  {
    name: "absolute form ftp",
    send: line("GET ftp://t/c HTTP/1.1"),
    stricter: "only http and https absolute-form targets are served",
  },
  { name: "target //c", send: line("GET //c HTTP/1.1") },
  { name: "target with a fragment", send: line("GET /c#frag HTTP/1.1") },
  { name: "target with a double quote", send: line('GET /c"q HTTP/1.1') },
  { name: "target with \\ { } | ^ `", send: line("GET /c\\{}|^` HTTP/1.1") },
  { name: "target with %00 (encoded)", send: line("GET /c%00 HTTP/1.1") },
  { name: "target of 8000 bytes", send: line(`GET /${"a".repeat(8000)} HTTP/1.1`) },
  { name: "target not starting with /", send: line("GET c HTTP/1.1") },
  { name: "empty target", send: line("GET  HTTP/1.1") },
  { name: "target with a space", send: line("GET /a b HTTP/1.1") },
  { name: "target with a tab", send: line("GET /a\tb HTTP/1.1") },
  { name: "target with NUL", send: line("GET /a\x00b HTTP/1.1") },
  { name: "target with \\x01", send: line("GET /a\x01b HTTP/1.1") },
  { name: "target with DEL", send: line("GET /a\x7fb HTTP/1.1") },
  { name: "target with raw byte 0x80", send: line("GET /a\x80b HTTP/1.1") },
  { name: "target with raw byte 0x9F", send: line("GET /a\x9fb HTTP/1.1") },
  { name: "target with raw byte 0xA0 (NBSP)", send: line("GET /a\xa0b HTTP/1.1") },
  { name: "target with raw UTF-8 (é)", send: line("GET /caf\xc3\xa9 HTTP/1.1") },
  { name: "target with raw byte 0xFF", send: line("GET /a\xffb HTTP/1.1") },
  {
    name: "two spaces after the method",
    send: line("GET  /c HTTP/1.1"),
    stricter: SPACING,
  },
  {
    name: "two spaces before the version",
    send: line("GET /c  HTTP/1.1"),
    stricter: SPACING,
  },
  { name: "tab between method and target", send: line("GET\t/c HTTP/1.1") },
  { name: "space after the version", send: line("GET /c HTTP/1.1 ") },
  { name: "space before the method", send: line(" GET /c HTTP/1.1") },
  {
    name: "no version (HTTP/0.9)",
    send: "GET /c\r\n\r\n",
    stricter: VERSIONS,
  },
  { name: "version HTTP/1.2", send: line("GET /c HTTP/1.2") },
  {
    name: "version HTTP/2.0",
    send: line("GET /c HTTP/2.0"),
    stricter: VERSIONS,
  },
  {
    name: "version HTTP/0.9",
    send: line("GET /c HTTP/0.9"),
    stricter: VERSIONS,
  },
  { name: "version HTTP/1.10", send: line("GET /c HTTP/1.10") },
  { name: "version HTTP/01.1", send: line("GET /c HTTP/01.1") },
  { name: "version in lowercase http/1.1", send: line("GET /c http/1.1") },
  { name: "version HTTP/1", send: line("GET /c HTTP/1") },
  { name: "version HTTP/1.1x", send: line("GET /c HTTP/1.1x") },
  {
    name: "version of another protocol RTSP/1.0",
    send: line("GET /c RTSP/1.0"),
    stricter: VERSIONS,
  },
  { name: "request line ended by a bare CR", send: "GET /c HTTP/1.1\rHost: t\r\n\r\n" },
  { name: "empty line (CRLF) before the request line", send: `\r\n${get()}` },
  { name: "two empty lines before the request line", send: `\r\n\r\n${get()}` },
  { name: "bare LF before the request line", send: `\n${get()}` },
  { name: "bare CR before the request line", send: `\r${get()}` },
  { name: "NUL before the request line", send: `\x00${get()}` },
];
