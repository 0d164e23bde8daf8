/**
 * CORS on the anonymous sender surface, so a page on any site can submit with the SDK:
 * `GET /forms/{formId}/manifest`, `POST /submissions`, the amend `PUT /submissions/{id}`,
 * `POST /submissions/upload-slot` and the pre-signed upload `PUT /blobs/{userId}/{hash}`.
 * No credentials are involved (the edit token is a bearer the page holds), so any origin may
 * call by default.
 *
 * A form may restrict the origins whose pages may submit to it: the `allowedOrigins` member
 * of its signed manifest (set on the form in the vault, learnt by the relay when the manifest
 * is published). The relay's own origin (the hosted form page) is always allowed. A browser
 * request from another origin gets 403 `origin_not_allowed` from the submission and amend
 * routes (checked before anything is stored) and no `Access-Control-Allow-Origin` on the
 * manifest. A request without an `Origin` header (curl, the CLI, a server) is not a browser
 * page and is not restricted: this is a limit on web pages, not authentication. Uploads are
 * keyed by user, not form, so they answer any origin.
 *
 * Every other route (owner, admin, vault, blob reads) sends no CORS headers, and a preflight
 * to it gets the plain 404.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { Forbidden } from "../../errors/index.ts";
import type { FormDirectory } from "../manifests.ts";

/** How long a browser may cache a preflight answer, in seconds. */
export const PREFLIGHT_MAX_AGE = 86_400;

interface SenderRoute {
  path: RegExp;
  method: string;
  headers: string;
}

const isFormId = (v: unknown): v is string =>
  typeof v === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(v);

/** The sender routes: path, method, and the request headers a page may send. */
const ROUTES: SenderRoute[] = [
  { path: /^\/forms\/([^/]+)\/manifest$/, method: "GET", headers: "Content-Type" },
  { path: /^\/submissions$/, method: "POST", headers: "Content-Type" },
  { path: /^\/submissions\/upload-slot$/, method: "POST", headers: "Content-Type" },
  { path: /^\/submissions\/[0-9a-f]{32}$/, method: "PUT", headers: "Authorization, Content-Type" },
  {
    path: /^\/blobs\/[^/]+\/[0-9a-f]{64}$/,
    method: "PUT",
    headers: "Content-Type, X-Amz-Content-Sha256",
  },
];

/** The origins a form's manifest allows, or null for any. */
export function allowedOrigins(manifest: Record<string, unknown>): string[] | null {
  const list = manifest.allowedOrigins;
  return Array.isArray(list) && list.length ? list.filter((o) => typeof o === "string") : null;
}

/** Whether a browser page of `origin` may submit to a form allowing `allowed`. */
export function originAllowed(
  origin: string | undefined,
  allowed: string[] | null,
  selfOrigins: string[],
): boolean {
  if (origin === undefined || allowed === null) return true;
  return allowed.includes(origin) || selfOrigins.includes(origin);
}

/** The origins of the relay itself: its public base URL and the URL a request came to. */
export function selfOriginsOf(publicBaseUrl: string, requestUrl: string): string[] {
  return [new URL(publicBaseUrl).origin, new URL(requestUrl).origin];
}

/**
 * Middleware of the submission and amend routes, after the body is parsed and before anything
 * is stored: refuses (403 `origin_not_allowed`) a browser request whose `Origin` the form's
 * manifest does not allow. A body without a form id is left to the route's validation.
 */
export function originGuard(forms: FormDirectory, publicBaseUrl: string): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const formId = origin === undefined
      ? undefined
      : (await c.req.json().catch(() => null))?.formId;
    const form = isFormId(formId) ? await forms.get(formId) : null;
    // An unknown form is the intake's 404.
    if (!form || origin === undefined) return await next();
    const self = selfOriginsOf(publicBaseUrl, c.req.url);
    if (!originAllowed(origin, allowedOrigins(form.manifest), self)) {
      throw new Forbidden(
        "origin_not_allowed",
        `Form "${formId}" does not take submissions from pages of ${origin}`,
      );
    }
    await next();
  };
}

/**
 * The CORS middleware of the sender routes (see the module documentation). Answers their
 * preflight (`OPTIONS`) itself and adds `Access-Control-Allow-Origin` to their answers,
 * errors included, so a page can read the error body.
 */
export function senderCors(forms: FormDirectory, publicBaseUrl: string): MiddlewareHandler {
  return async (c, next) => {
    const route = ROUTES.find((r) => r.path.test(c.req.path));
    if (!route) return await next();
    const origin = c.req.header("origin");
    let allow = "*";
    const formId = route.method === "GET" ? route.path.exec(c.req.path)?.[1] : undefined;
    if (formId !== undefined && origin !== undefined) {
      const form = isFormId(formId) ? await forms.get(formId) : null;
      const allowed = form ? allowedOrigins(form.manifest) : null;
      const self = selfOriginsOf(publicBaseUrl, c.req.url);
      allow = allowed === null ? "*" : originAllowed(origin, allowed, self) ? origin : "";
    }
    if (c.req.method === "OPTIONS") {
      const headers: Record<string, string> = {
        "access-control-allow-methods": route.method,
        "access-control-allow-headers": route.headers,
        "access-control-max-age": String(PREFLIGHT_MAX_AGE),
      };
      if (allow) headers["access-control-allow-origin"] = allow;
      if (allow !== "*") headers.vary = "Origin";
      return c.body(null, 204, headers);
    }
    await next();
    if (allow) c.res.headers.set("access-control-allow-origin", allow);
    if (allow !== "*") c.res.headers.append("vary", "Origin");
    c.res.headers.set("access-control-expose-headers", "Retry-After");
  };
}
