/**
 * One HTTP attempt: send the request (redirects not followed, bounded in time), read a
 * snippet of the answer, classify it.
 *
 * @module
 */
import { TimeoutSignals } from "./deadlines.ts";
import { checkDestination, type Resolver } from "./guard.ts";
import { fetchPinned } from "./pinned.ts";
import { classifyStatus, type Outcome, parseRetryAfter, snippetOf } from "./outcome.ts";
import type { OutboundRequest } from "./request.ts";

/** What one attempt did. */
export interface AttemptResult {
  /** When it started (ISO-8601). */
  at: string;
  /** The response status; null when no response came. */
  status: number | null;
  durationMs: number;
  outcome: Outcome;
  /** Why no usable response came (network error, timeout, refused address). */
  error: string | null;
  /** At most 200 characters of the response body, newlines collapsed. */
  snippet: string | null;
  /** Wait a Retry-After header asked for, in seconds (transient outcomes only). */
  retryAfterSeconds: number | null;
}

/** How attempts are made. */
export interface SendOptions {
  timeoutMs: number;
  blockPrivateNetworks: boolean;
  /** DNS for the private-network guard (tests replace it). */
  resolve?: Resolver;
  /** Extra root certificates (PEM) for `https:` requests to a checked address (tests). */
  caCerts?: string[];
}

/** Bytes of the response body read for the snippet (a UTF-8 character is at most 4). */
const SNIPPET_BYTES = 1024;

/** The timeouts of the attempts under way: shared signals, on one timer. */
const timeouts = new TimeoutSignals();

async function readSnippet(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < SNIPPET_BYTES) {
      const step = await reader.read();
      if (step.done) break;
      chunks.push(step.value);
      size += step.value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes.subarray(0, SNIPPET_BYTES));
}

/** An error message for the owner, without the destination URL (it may carry a secret). */
function describe(err: unknown, url: string, timeoutMs: number): string {
  const e = err as Error;
  if (e?.name === "TimeoutError" || e?.name === "AbortError") {
    return `Timed out after ${timeoutMs / 1000} s`;
  }
  const cause = e?.cause instanceof Error && e.cause.message ? e.cause : e;
  let message = cause instanceof Error ? cause.message : String(err);
  for (const form of new Set([url, new URL(url).href])) message = message.replaceAll(form, "<url>");
  return message.replace(/^error sending request for url \(<url>\):\s*/i, "");
}

/**
 * Sends `request` once and reports what happened; never throws. Redirects are not followed
 * (a 3xx counts as delivered); the timeout covers connecting, sending, the response head and
 * the snippet.
 *
 * @example
 * ```ts
 * const result = await sendRequest(request, { timeoutMs: 15_000, blockPrivateNetworks: false });
 * result.outcome; // "delivered" | "transient" | "permanent"
 * ```
 */
export async function sendRequest(
  request: OutboundRequest,
  options: SendOptions,
): Promise<AttemptResult> {
  const at = new Date().toISOString();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (outcome: Outcome, error: string): AttemptResult => ({
    at,
    status: null,
    durationMs: elapsed(),
    outcome,
    error,
    snippet: null,
    retryAfterSeconds: null,
  });
  // With the guard on, a name is resolved once and the request goes to the checked address.
  let pinned: string | undefined;
  if (options.blockPrivateNetworks) {
    const verdict = await checkDestination(new URL(request.url), options.resolve);
    if (!verdict.ok) return failed(verdict.permanent ? "permanent" : "transient", verdict.error);
    pinned = verdict.address;
  }
  // As AbortSignal.timeout would, but shared with the attempts that start about now.
  const timeout = timeouts.take(options.timeoutMs);
  let response: Response;
  let snippet: string | null = null;
  let error: string | null = null;
  try {
    try {
      response = pinned
        ? await fetchPinned(new URL(request.url), pinned, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          signal: timeout.signal,
          caCerts: options.caCerts,
        })
        : await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body as Uint8Array<ArrayBuffer>,
          redirect: "manual",
          signal: timeout.signal,
        });
    } catch (err) {
      return failed("transient", describe(err, request.url, options.timeoutMs));
    }
    try {
      // No body (a 204, say): no reader to make.
      snippet = response.body ? snippetOf(await readSnippet(response.body)) : "";
    } catch (err) {
      error = `Reading the response: ${describe(err, request.url, options.timeoutMs)}`;
    }
  } finally {
    timeouts.give(timeout);
  }
  const outcome = classifyStatus(response.status);
  return {
    at,
    status: response.status,
    durationMs: elapsed(),
    outcome,
    error,
    snippet,
    retryAfterSeconds: outcome === "transient"
      ? parseRetryAfter(response.headers.get("retry-after"), Date.now())
      : null,
  };
}
