/**
 * How a case's outcome on each server is read (refused or not, which requests the handler
 * saw) and the rule between the two: Sealpost is never more lenient than llhttp.
 */
import type { Case } from "./case.ts";
import type { Exchanged } from "./exchange.ts";
import type { HandlerRecord } from "./recorder.ts";
import type { Taken } from "./servers.ts";

/** What one server did with a case's bytes. */
export type Outcome = Exchanged & Taken;

/**
 * llhttp's error for bytes after a message that closes the connection (`Connection: close`,
 * HTTP/1.0): it stops there, as Sealpost does by closing, so it is no refusal of the case.
 */
const AFTER_CLOSE = "HPE_CLOSED_CONNECTION";

/**
 * Whether the server refused the bytes: it answered an error of its own (a 4xx or 5xx not
 * from the handler), or it closed the connection other than after a handler's answer that
 * said `Connection: close` to requests read whole. A server that went quiet (waiting for
 * more) did not refuse. llhttp's error on bytes after a closing message is no refusal.
 */
export function refused(outcome: Outcome): boolean {
  const stoppedAtClose = outcome.errors.length > 0 &&
    outcome.errors.every((e) => e.startsWith(AFTER_CLOSE));
  if (stoppedAtClose) return outcome.records.some((r) => r.error);
  if (outcome.responses.some((r) => !r.handler && r.status >= 400)) return true;
  if (outcome.end === "idle") return false;
  const last = outcome.responses.at(-1);
  return !(last?.handler && last.close && !outcome.records.some((r) => r.error));
}

/** A record as compared: method, path, the body read or a body error. */
function key(record: HandlerRecord): string {
  const body = record.body === null ? "" : ` ${JSON.stringify(record.body)}`;
  return `${record.method} ${record.path}${body}${record.error ? " (body error)" : ""}`;
}

/** Whether a record's message was cut short: its body failed, or the server never read it all. */
function incomplete(record: HandlerRecord | undefined): boolean {
  return record !== undefined && (record.error || record.complete === false);
}

/**
 * Whether both handlers saw the same requests. Sealpost reads a small Content-Length body
 * before calling the handler, Node calls it at the end of the head: a last request whose
 * body never arrived whole may be seen by Node's handler alone.
 */
function sameRequests(llhttp: HandlerRecord[], sealpost: HandlerRecord[]): boolean {
  const node = llhttp.length === sealpost.length + 1 && incomplete(llhttp.at(-1))
    ? llhttp.slice(0, -1)
    : llhttp;
  return node.map(key).join("\n") === sealpost.map(key).join("\n");
}

/**
 * Whether Sealpost's handler saw no request llhttp's did not see first: its records are the
 * first of llhttp's, a last one whose body failed (where Sealpost refused) compared by
 * method and path.
 */
function noMoreRequests(llhttp: HandlerRecord[], sealpost: HandlerRecord[]): boolean {
  return sealpost.every((record, i) => {
    const node = llhttp[i];
    if (!node) return false;
    if (i === sealpost.length - 1 && record.error) {
      return node.method === record.method && node.path === record.path;
    }
    return key(node) === key(record);
  });
}

/**
 * What is wrong with Sealpost's outcome against llhttp's (nothing: an empty list).
 *
 * - Sealpost never parses a request after a body error.
 * - Without a `stricter` reason: where llhttp refuses, Sealpost refuses, and its handler saw
 *   no request that llhttp's did not (it may refuse earlier); where llhttp accepts, Sealpost
 *   accepts and both handlers saw the same requests.
 * - With one: llhttp accepts, Sealpost refuses, and its handler saw no request that
 *   llhttp's did not.
 */
export function judge(c: Case, llhttp: Outcome, sealpost: Outcome): string[] {
  const problems: string[] = [];
  const broken = sealpost.records.findIndex((r) => r.error);
  if (broken >= 0 && broken < sealpost.records.length - 1) {
    problems.push("Sealpost parsed a request after a body error");
  }
  const nodeRefused = refused(llhttp);
  const sealRefused = refused(sealpost);
  if (c.stricter) {
    if (nodeRefused) problems.push(`marked stricter (${c.stricter}), but llhttp refuses too`);
    if (!sealRefused) problems.push(`marked stricter (${c.stricter}), but Sealpost accepts`);
  } else if (nodeRefused && !sealRefused) {
    problems.push("llhttp refuses, Sealpost does not");
  } else if (!nodeRefused && sealRefused) {
    problems.push("Sealpost refuses what llhttp accepts (no stricter reason given)");
  }
  const counts =
    `llhttp's handler saw ${llhttp.records.length}, Sealpost's ${sealpost.records.length}`;
  if (nodeRefused || c.stricter) {
    if (!noMoreRequests(llhttp.records, sealpost.records)) {
      problems.push(`Sealpost's handler saw requests llhttp's did not (${counts})`);
    }
  } else if (!sameRequests(llhttp.records, sealpost.records)) {
    problems.push(`the handlers saw different requests (${counts})`);
  }
  return problems;
}

/** The reason of a server's own error answer, as Sealpost words it (`{"error": {"message"}}`). */
function reasonOf(detail: string): string {
  try {
    return JSON.parse(detail).error.message;
  } catch {
    return detail.slice(0, 80);
  }
}

/**
 * One line on what a server did: refused or not, its responses, how it ended, its parse
 * errors or reasons, what its handler saw.
 */
export function describe(outcome: Outcome): string {
  const responses = outcome.responses
    .map((r) => `${r.status}${r.handler ? "" : " (server)"}${r.close ? " close" : ""}`)
    .join(", ");
  const rest = outcome.rest ? ` +${outcome.rest.length} bytes unparsed` : "";
  const reasons = [
    ...outcome.errors,
    ...outcome.responses.flatMap((r) => r.detail ? [reasonOf(r.detail)] : []),
  ];
  const why = reasons.length ? ` {${reasons.join("; ")}}` : "";
  const seen = outcome.records.map((r) => {
    const text = key(r);
    return text.length > 60 ? `${text.slice(0, 57)}...` : text;
  }).join("; ");
  return `${refused(outcome) ? "REFUSED" : "accepted"}: [${responses}]${rest} then ` +
    `${outcome.end}${why}; handler saw [${seen}]`;
}
