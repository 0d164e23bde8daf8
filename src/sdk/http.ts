/**
 * The SDK's HTTP: one request helper with a timeout, safe retries and the server's JSON error
 * body turned into a {@linkcode RelayError}.
 *
 * @module
 */
import { NetworkError, RelayError, SealpostError } from "./errors.ts";

/** Transport options every network call of the SDK accepts. */
export interface HttpOptions {
  /** The fetch to use (default: `globalThis.fetch`), e.g. to add headers or a proxy. */
  fetch?: typeof fetch;
  /** Per-attempt timeout in milliseconds (default 15000). */
  timeoutMs?: number;
  /**
   * Further attempts after a network error, timeout, 408, 429 or 5xx (default 3). Only
   * requests that are safe to repeat are retried.
   */
  retries?: number;
  /** Aborts the whole operation, retries included. */
  signal?: AbortSignal;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_RETRIES = 3;
const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 10_000;

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

function delayFor(attempt: number, retryAfter: string | null): number {
  const backoff = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  const jittered = backoff / 2 + Math.random() * backoff / 2;
  if (retryAfter === null) return jittered;
  const seconds = Number(retryAfter);
  const wanted = Number.isFinite(seconds) && /^\s*\d+\s*$/.test(retryAfter)
    ? seconds * 1000
    : Date.parse(retryAfter) - Date.now();
  return Number.isFinite(wanted) ? Math.min(MAX_DELAY_MS, Math.max(jittered, wanted)) : jittered;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Turns an error response into a {@linkcode RelayError}, reading `{"error": {...}}`. */
async function relayError(response: Response, what: string): Promise<RelayError> {
  const text = await response.text().catch(() => "");
  let code = `http_${response.status}`;
  let message = `${what} failed with HTTP ${response.status}`;
  let field: string | undefined;
  let serverMessage: string | undefined;
  try {
    const error = JSON.parse(text)?.error;
    if (error && typeof error.code === "string") code = error.code;
    if (error && typeof error.message === "string") {
      serverMessage = error.message;
      message = `${what}: ${error.message}`;
    }
    if (error && typeof error.field === "string") field = error.field;
  } catch {
    const snippet = text.replace(/\s+/g, " ").trim().slice(0, 200);
    if (snippet) message += `: ${snippet}`;
  }
  return new RelayError(response.status, code, message, { field, serverMessage });
}

/**
 * Sends a request that is safe to repeat, retrying per {@linkcode HttpOptions}, and hands the
 * first 2xx response to `read` (still under the attempt's timeout). `what` names the
 * operation in error messages.
 *
 * @throws {RelayError} for a non-2xx answer that is not retried (or the last retried one).
 * @throws {NetworkError} when no answer came.
 */
export async function request<T>(
  url: string,
  init: RequestInit,
  what: string,
  options: HttpOptions,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = options.retries ?? DEFAULT_RETRIES;
  const signal = options.signal;
  for (let attempt = 0;; attempt++) {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal!.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let retryAfter: string | null = null;
    try {
      if (signal?.aborted) throw signal.reason;
      const response = await doFetch(url, { ...init, signal: controller.signal });
      if (response.ok) return await read(response);
      if (attempt >= retries || !retryable(response.status)) {
        throw await relayError(response, what);
      }
      retryAfter = response.headers.get("retry-after");
      await response.body?.cancel();
    } catch (e) {
      if (e instanceof SealpostError || signal?.aborted) throw e;
      if (attempt >= retries) {
        throw timedOut
          ? new NetworkError("timeout", `${what} timed out after ${timeoutMs} ms`, { cause: e })
          : new NetworkError("network_error", `${what} failed: ${(e as Error)?.message ?? e}`, {
            cause: e,
          });
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    await sleep(delayFor(attempt, retryAfter), signal);
  }
}

/**
 * POSTs JSON (retrying per {@linkcode HttpOptions}) and parses the JSON answer.
 *
 * @throws {RelayError} for an error status or a 2xx answer that is not JSON.
 * @throws {NetworkError} when no answer came.
 */
export function postJson(
  url: string,
  body: unknown,
  what: string,
  options: HttpOptions,
): Promise<unknown> {
  return request(
    url,
    {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    },
    what,
    options,
    (response) => readJson(response, what),
  );
}

/** Parses a 2xx response's JSON body or throws a {@linkcode RelayError} `invalid_response`. */
export async function readJson(response: Response, what: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new RelayError(
      response.status,
      "invalid_response",
      `${what}: the answer is not JSON (${JSON.stringify(text.slice(0, 80))})`,
      { cause },
    );
  }
}

/** Joins a base URL and an absolute path, dropping trailing slashes of the base. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, "") + path;
}
