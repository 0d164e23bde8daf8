/**
 * The checks over HTTP against the running instance: its base URL answers `/healthz`, the
 * instance calls itself by that same URL, its clock agrees with ours, its storage can write.
 *
 * @module
 */
import type { InstanceInfo } from "../admin/api/instance.ts";
import { ApiCallError, type SealpostClient } from "../cli/client.ts";
import { check, type CheckResult, NETWORK_TIMEOUT_MS, reason } from "./check.ts";

/** Clock skew past which the `clock` check fails, in seconds. */
export const MAX_CLOCK_SKEW_SECONDS = 60;

/** What `GET {base_url}/healthz` answered, or why it did not. */
export interface HealthProbe {
  /** The HTTP status, or 0 when nothing answered. */
  status: number;
  /** `status` of the body (`ok`, `degraded`), with `reason` when degraded. */
  body: { status?: string; version?: string; reason?: string } | null;
  /** Milliseconds from sending to the response head. */
  elapsedMs: number;
  /** Local time (ms) halfway through the request, against which the Date header is read. */
  midpointMs: number;
  /** The response's Date header. */
  date: string | null;
  /** Why nothing answered. */
  error?: string;
}

/**
 * Sends `GET {baseUrl}/healthz` once.
 *
 * @example
 * ```ts
 * const probe = await probeHealth("https://forms.example.org");
 * ```
 */
export async function probeHealth(baseUrl: string): Promise<HealthProbe> {
  const started = Date.now();
  try {
    const response = await fetch(`${baseUrl}/healthz`, {
      signal: AbortSignal.timeout(NETWORK_TIMEOUT_MS),
      redirect: "manual",
    });
    const ended = Date.now();
    const text = await response.text();
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      // Not Sealpost's answer (a proxy's page): the status says enough.
    }
    return {
      status: response.status,
      body,
      elapsedMs: ended - started,
      midpointMs: (started + ended) / 2,
      date: response.headers.get("date"),
    };
  } catch (err) {
    const elapsedMs = Date.now() - started;
    return {
      status: 0,
      body: null,
      elapsedMs,
      midpointMs: started,
      date: null,
      error: reason(err),
    };
  }
}

/**
 * `base_url_reachable`: `/healthz` answered as Sealpost answers it (200 ok, or 503 degraded,
 * which the `storage` check reports).
 */
export function reachableCheck(baseUrl: string, probe: HealthProbe): CheckResult {
  const name = "base_url_reachable";
  const where = `${baseUrl}/healthz`;
  if (probe.status === 0) return check(name, "fail", `${where} did not answer: ${probe.error}`);
  if (probe.body?.status === undefined) {
    return check(
      name,
      "fail",
      `${where} answered HTTP ${probe.status}, not Sealpost's health answer ` +
        "(a proxy in front that does not pass it through, or another service on this address)",
    );
  }
  return check(
    name,
    "ok",
    `${where} answered ${probe.status} in ${probe.elapsedMs} ms (Sealpost ${probe.body.version})`,
  );
}

/** `storage`: the instance's own storage verdict from `/healthz`. */
export function storageCheck(probe: HealthProbe): CheckResult {
  const name = "storage";
  if (probe.body?.status === undefined) return check(name, "skip", "no health answer to read");
  if (probe.body.status === "ok") return check(name, "ok", "the store accepts writes");
  return check(
    name,
    "fail",
    `the instance reports its storage ${probe.body.status}: ${probe.body.reason ?? "no reason"}`,
  );
}

/**
 * `clock`: our clock against the server's Date header, read halfway through the request
 * (the header has whole seconds, so up to a second of the skew shown is rounding).
 */
export function clockCheck(probe: HealthProbe, now = probe.midpointMs): CheckResult {
  const name = "clock";
  if (probe.status === 0) return check(name, "skip", "the instance did not answer");
  const server = probe.date === null ? NaN : Date.parse(probe.date);
  if (Number.isNaN(server)) return check(name, "skip", "the answer carried no Date header");
  const skew = Math.abs(now - server) / 1000;
  const words = `${skew.toFixed(1)} s between this machine's clock and the server's`;
  return skew > MAX_CLOCK_SKEW_SECONDS
    ? check(
      name,
      "fail",
      `${words} (more than ${MAX_CLOCK_SKEW_SECONDS} s): pre-signed URLs and sessions expire ` +
        "early or late; run an NTP client (systemd-timesyncd, chrony) on both",
    )
    : check(name, "ok", words);
}

/** The origin and path of a URL without a trailing slash, for comparing base URLs. */
function normalized(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return url;
  }
}

/**
 * `base_url_matches`: the base URL the instance writes into manifests and pre-signed URLs is
 * the one it was reached at. `info` is the instance's answer, or why there is none.
 */
export function matchCheck(baseUrl: string, info: InstanceInfo | InstanceUnavailable): CheckResult {
  const name = "base_url_matches";
  if ("unavailable" in info) return check(name, info.verdict, info.unavailable);
  if (normalized(info.baseUrl) === normalized(baseUrl)) {
    return check(name, "ok", `the instance's base_url is ${info.baseUrl} (role ${info.role})`);
  }
  return check(
    name,
    "fail",
    `the instance's base_url is ${info.baseUrl}, but it was reached at ${baseUrl}: manifests ` +
      `and upload URLs would send senders to ${info.baseUrl}; set base_url = "${baseUrl}" ` +
      "(or SEALPOST_BASE_URL) and restart",
  );
}

/** Why the instance's view of itself could not be read, and whether that fails the check. */
export interface InstanceUnavailable {
  unavailable: string;
  verdict: "skip" | "fail";
}

/**
 * Reads `GET /admin/instance` with the client's admin token. Without a token the answer is a
 * skip (nothing to compare); a refused token or an error is a failure.
 *
 * @example
 * ```ts
 * const info = await fetchInstance(client);
 * ```
 */
export async function fetchInstance(
  client: SealpostClient,
): Promise<InstanceInfo | InstanceUnavailable> {
  if (!client.hasToken) {
    return {
      verdict: "skip",
      unavailable: "no admin token to ask the instance for its own base_url " +
        "(give --token, SEALPOST_TOKEN, or --data DIR holding credentials.json)",
    };
  }
  try {
    return await client.call<InstanceInfo>("GET", "/admin/instance");
  } catch (err) {
    if (!(err instanceof ApiCallError)) throw err;
    const refused = err.status === 401 || err.status === 403;
    return {
      verdict: "fail",
      unavailable: refused
        ? `the instance refused the admin token (HTTP ${err.status}: ${err.message})`
        : `GET /admin/instance failed: ${err.message}`,
    };
  }
}
