/**
 * What every console route shares: its dependencies, the session middleware, the CSRF check
 * of state-changing requests, the security headers (a strict Content-Security-Policy with no
 * inline script), and the session cookie.
 *
 * @module
 */
import type { PeopleServices } from "../people/index.ts";
import type { PersonTokens } from "../people/tokens.ts";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { type Config, publicBaseUrl } from "../config/index.ts";
import { Forbidden, Invalid, Unauthenticated } from "../errors/index.ts";
import type { RateLimitPort } from "../store/ports/rate_limits.ts";
import type { Vault } from "../vault/index.ts";
import type { WebhookEngine } from "../webhooks/index.ts";
import type { Session, Sessions, SignIn } from "./sessions.ts";
import type { Person } from "../store/ports/people.ts";
import { clientIp, viaTrustedProxy } from "../http/client_ip.ts";
import { AddressRanges } from "../ip/address.ts";

/** What the console needs from the process: the vault and webhook services, in-process. */
export interface ConsoleDeps {
  config: Config;
  vault: Vault;
  webhooks: WebhookEngine;
  sessions: Sessions;
  /** People, members and invitations (src/people). */
  people: PeopleServices;
  /** The public base URL (one-time links point there). */
  baseUrl: () => string;
  /** The buckets of the sign-in limits (src/people/sign_in_limits.ts). */
  rateLimits: RateLimitPort;
  /** People's API tokens (the "API tokens" page). */
  apiTokens: PersonTokens;
}

/** Hono environment of the console's routes. */
export type ConsoleEnv = { Variables: { session: Session } };

/** The session cookie's name. */
export const SESSION_COOKIE = "sealpost_console";
/** The pre-sign-in CSRF cookie's name (double submit on the sign-in forms). */
export const SIGN_IN_COOKIE = "sealpost_console_signin";
/** The cookie holding the ticket of a sign-in waiting for its second factor. */
export const SECOND_STEP_COOKIE = "sealpost_console_second_step";
/** The form field (or `X-CSRF-Token` header) carrying the CSRF token. */
export const CSRF_FIELD = "_csrf";

/** Whether cookies must be `Secure`: the request or the public base URL is https. */
export function isHttps(c: Context, config: Config): boolean {
  if (new URL(c.req.url).protocol === "https:") return true;
  if (
    c.req.header("x-forwarded-proto") === "https" &&
    viaTrustedProxy(c, new AddressRanges(config.server.trusted_proxies))
  ) return true;
  return publicBaseUrl(config).startsWith("https:");
}

/** Sets a console cookie: HttpOnly, SameSite=Strict, path /console, Secure on https. */
export function setConsoleCookie(
  c: Context,
  config: Config,
  name: string,
  value: string,
  maxAgeSeconds: number,
): void {
  setCookie(c, name, value, {
    httpOnly: true,
    sameSite: "Strict",
    secure: isHttps(c, config),
    path: "/console",
    maxAge: maxAgeSeconds,
  });
}

/**
 * Signs `person` in: a new session (its address and browser noted), its cookie set; the
 * pre-sign-in cookie `formCookie` cleared.
 */
export async function startSession(
  c: Context,
  deps: ConsoleDeps,
  person: Person,
  how: Pick<SignIn, "method" | "secondFactor">,
  formCookie: string,
): Promise<void> {
  const { cookie } = await deps.sessions.create(person, {
    ...how,
    address: clientIp(c, new AddressRanges(deps.config.server.trusted_proxies)),
    agent: c.req.header("user-agent") ?? "",
  });
  clearConsoleCookie(c, deps.config, formCookie);
  setConsoleCookie(c, deps.config, SESSION_COOKIE, cookie, deps.sessions.limits.maxSeconds);
}

/** Deletes a console cookie. */
export function clearConsoleCookie(c: Context, config: Config, name: string): void {
  setConsoleCookie(c, config, name, "", 0);
}

/**
 * The origin of the S3 store the relay's file URLs point at with `blobs.backend = "s3"` (a
 * vault-role process takes it from its own `[blobs]` settings), else "".
 */
function blobStoreOrigin(deps: ConsoleDeps): string {
  const { backend, s3 } = deps.config.blobs;
  return backend === "s3" ? new URL(s3.endpoint).origin : "";
}

/** The origin of the relay the vault's file URLs point at (images load from there). */
function relayOrigin(deps: ConsoleDeps): string {
  try {
    return new URL(deps.vault.link.relayUrl).origin;
  } catch {
    return "";
  }
}

/**
 * Security headers of every console response: a strict CSP (scripts and styles from the
 * console only, images also from the relay, or the S3 store, that serves the uploaded files), no framing, no
 * sniffing, no referrer, no caching.
 */
export function securityHeaders(deps: ConsoleDeps): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const relay = relayOrigin(deps);
    c.res.headers.set(
      "content-security-policy",
      [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        ["img-src 'self' data:", relay, blobStoreOrigin(deps)].filter(Boolean).join(" "),
        "connect-src 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join("; "),
    );
    c.res.headers.set("x-content-type-options", "nosniff");
    c.res.headers.set("x-frame-options", "DENY");
    c.res.headers.set("referrer-policy", "no-referrer");
    c.res.headers.set("cache-control", "no-store");
  };
}

/** The session of the request, or null. */
export function sessionOf(c: Context, deps: ConsoleDeps): Promise<Session | null> {
  return deps.sessions.get(getCookie(c, SESSION_COOKIE));
}

/**
 * Requires a live session (else a redirect to the sign-in page) and, on every method but
 * GET and HEAD, its CSRF token in the form field `_csrf` or the `X-CSRF-Token` header (else
 * a 403).
 */
export function requireSession(deps: ConsoleDeps): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const session = await sessionOf(c, deps);
    if (!session) {
      if (c.req.method === "GET" || c.req.method === "HEAD") return c.redirect("/console", 303);
      throw new Unauthenticated("unauthorized", "Your console session has ended: sign in again");
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const presented = c.req.header("x-csrf-token") ?? await csrfField(c);
      if (!deps.sessions.checkCsrf(session, presented)) {
        throw new Forbidden("csrf_failed", "Missing or wrong CSRF token: reload the page");
      }
    }
    c.set("session", session);
    await next();
  };
}

/** The `_csrf` field of a form body (parsed once; Hono caches the parsed body). */
async function csrfField(c: Context): Promise<string | null> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/")) {
    return null;
  }
  const body = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
  const value = body[CSRF_FIELD];
  return typeof value === "string" ? value : null;
}

/** The form body of a request as strings (files ignored), `all` values for repeated names. */
export async function formBody(c: Context): Promise<Record<string, string | string[]>> {
  const body = await c.req.parseBody({ all: true }).catch(() => {
    throw new Invalid("invalid_request", "The form body could not be read");
  });
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === "string") out[key] = value;
    else if (Array.isArray(value)) out[key] = value.filter((v) => typeof v === "string");
  }
  return out;
}

/** One string of a form body (the first when repeated), trimmed; "" when absent. */
export function field(body: Record<string, string | string[]>, name: string): string {
  const value = body[name];
  return (Array.isArray(value) ? value[0] ?? "" : value ?? "").trim();
}
