/**
 * The owner console: web pages under `/console`, served by the vault only (it alone holds the
 * keys and sees plaintext). Server-rendered with hono/jsx, plain HTML forms with CSRF tokens,
 * a strict CSP with no inline script; it uses the vault and webhook services in-process.
 *
 * - `sessions.ts`, `context.ts`: server-side sessions in KV, cookies, CSRF, headers.
 * - `sign_in_routes.tsx`, `set_password_routes.tsx`: signing in (password, second factor,
 *   passkey) and a set-password link's page.
 * - `security_routes.tsx`, `security_page.tsx`: the person's Security page.
 * - `auth_routes.tsx`: sign-out, the front page.
 * - `record_routes.tsx`, `records_page.tsx`, `record_query.ts`, `values.tsx`, `export.ts`:
 *   records.
 * - `lifecycle_routes.tsx`: closing, reopening and deleting a form.
 * - `database_routes.tsx`, `members_page.tsx`: databases and their members;
 *   `invitation_routes.tsx`: accepting an invitation.
 * - `token_routes.tsx`: the person's API tokens.
 * - `audit_routes.tsx`: the audit log (instance admins).
 * - `quarantine_routes.tsx`, `webhook_routes.tsx`, `form_routes.tsx`: the rest.
 *
 * @module
 */
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { errorResponse, httpError } from "../http/errors.ts";
import { NotFound, TooLarge } from "../errors/index.ts";
import { Forbidden } from "../errors/index.ts";
import { hasSecondFactor, SignIn } from "../people/sign_in.ts";
import { Security } from "../people/security.ts";
import { SignInLimits } from "../people/sign_in_limits.ts";
import {
  CONSOLE_CSS,
  CONSOLE_JS,
  CONSOLE_SCRIPT_PATH,
  FORM_CSS,
  FORM_STYLE_PATH,
  PASSKEY_JS,
  PASSKEY_SCRIPT_PATH,
  TICKET_JS,
  TICKET_SCRIPT_PATH,
} from "./assets.ts";
import { auditRoutes } from "./audit_routes.tsx";
import { authRoutes } from "./auth_routes.tsx";
import { type ConsoleDeps, type ConsoleEnv, requireSession, securityHeaders } from "./context.ts";
import { formRoutes } from "./form_routes.tsx";
import { lifecycleRoutes } from "./lifecycle_routes.tsx";
import { errorPage } from "./layout.tsx";
import { quarantineRoutes } from "./quarantine_routes.tsx";
import { recordRoutes } from "./record_routes.tsx";
import { securityRoutes } from "./security_routes.tsx";
import { setPasswordRoutes } from "./set_password_routes.tsx";
import { signInRoutes } from "./sign_in_routes.tsx";
import { tokenRoutes } from "./token_routes.tsx";
import { webhookRoutes } from "./webhook_routes.tsx";
import { databaseRoutes } from "./database_routes.tsx";
import { invitationRoutes } from "./invitation_routes.tsx";

/** What a form or record id can be (as the owner API's path parameters allow). */
const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Paths under /console/ served without a session (and every path under /console/sign-in/). */
const OPEN = new Set([
  "/console",
  "/console/sign-in",
  "/console/invitations",
  TICKET_SCRIPT_PATH,
  "/console/set-password",
  "/console/assets/console.css",
  CONSOLE_SCRIPT_PATH,
  PASSKEY_SCRIPT_PATH,
  FORM_STYLE_PATH,
]);
const isOpen = (path: string) => OPEN.has(path) || path.startsWith("/console/sign-in/");

/** Paths a person who must add a second factor may still use. */
const UNTIL_SECOND_FACTOR = /^\/console\/(security(\/.*)?|sign-out(-everywhere)?)$/;

export type { ConsoleDeps } from "./context.ts";
export { Sessions } from "./sessions.ts";

/**
 * The console's routes.
 *
 * @example
 * ```ts
 * app.route("/", consoleRoutes({ config, vault, webhooks, sessions }));
 * ```
 */
export function consoleRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.use("/console", securityHeaders(deps));
  app.use("/console/*", securityHeaders(deps));
  app.use(
    "/console/*",
    bodyLimit({
      maxSize: 1024 * 1024,
      onError: () => {
        throw new TooLarge("payload_too_large", "Request body exceeds 1 MiB");
      },
    }),
  );
  const store = deps.vault.store;
  const signIn = new SignIn({
    people: store.people,
    factors: store.signInFactors,
    tickets: store.tickets,
    limits: new SignInLimits(deps.rateLimits, deps.config.rate_limits),
    audit: deps.vault.audit,
  });
  const security = new Security({
    people: store.people,
    factors: store.signInFactors,
    tickets: store.tickets,
    audit: deps.vault.audit,
  });
  /** Whether the instance requires a second factor and `personId` has none. */
  const required = async (personId: string) =>
    deps.config.console.require_second_factor &&
    !hasSecondFactor(await signIn.factorsOf(personId));
  // Every console route but the sign-in steps and the assets needs a session (and CSRF); while
  // a required second factor is missing, only the Security page and signing out.
  const guard = requireSession(deps);
  app.use("/console/*", (c, next) => isOpen(c.req.path) ? next() : guard(c, next));
  app.use("/console/*", async (c, next) => {
    if (isOpen(c.req.path) || UNTIL_SECOND_FACTOR.test(c.req.path)) return await next();
    if (!(await required(c.var.session.personId))) return await next();
    if (c.req.method === "GET") return c.redirect("/console/security", 303);
    throw new Forbidden("second_factor_required", "Add a second factor on the Security page first");
  });
  // Ids in paths name KV keys: anything that cannot be an id is not found (never a 5xx).
  const ids: MiddlewareHandler = async (c, next) => {
    for (const name of ["formId", "recordId"]) {
      const value = c.req.param(name);
      if (value !== undefined && !ID.test(value)) {
        throw new NotFound(
          "not_found",
          `No ${name === "formId" ? "form" : "record"} "${value.slice(0, 64)}"`,
        );
      }
    }
    await next();
  };
  app.use("/console/forms/:formId", ids);
  app.use("/console/forms/:formId/*", ids);
  app.use("/console/forms/:formId/records/:recordId", ids);
  app.use("/console/forms/:formId/records/:recordId/*", ids);
  app.get("/console/assets/console.css", (c) => {
    c.header("content-type", "text/css; charset=utf-8");
    return c.body(CONSOLE_CSS);
  });
  app.get(CONSOLE_SCRIPT_PATH, (c) => {
    c.header("content-type", "text/javascript; charset=utf-8");
    return c.body(CONSOLE_JS);
  });
  app.get(TICKET_SCRIPT_PATH, (c) => {
    c.header("content-type", "text/javascript; charset=utf-8");
    return c.body(TICKET_JS);
  });
  app.get(PASSKEY_SCRIPT_PATH, (c) => {
    c.header("content-type", "text/javascript; charset=utf-8");
    return c.body(PASSKEY_JS);
  });
  app.get(FORM_STYLE_PATH, (c) => {
    c.header("content-type", "text/css; charset=utf-8");
    return c.body(FORM_CSS);
  });
  app.route("/", authRoutes(deps, required));
  app.route(
    "/",
    signInRoutes(deps, signIn, async (id) => {
      return await required(id) ? "/console/security" : "/console";
    }),
  );
  app.route("/", setPasswordRoutes(deps, signIn));
  app.route("/", securityRoutes(deps, security, deps.vault.audit, required));
  app.route("/", recordRoutes(deps));
  app.route("/", quarantineRoutes(deps));
  app.route("/", webhookRoutes(deps));
  app.route("/", tokenRoutes(deps));
  app.route("/", lifecycleRoutes(deps));
  app.route("/", auditRoutes(deps));
  app.route("/", formRoutes(deps));
  app.route("/", databaseRoutes(deps));
  app.route("/", invitationRoutes(deps));
  app.onError((err, c) => {
    const wantsHtml = (c.req.header("accept") ?? "").includes("text/html");
    const known = httpError(err);
    if (!wantsHtml || !known) return errorResponse(err, c);
    return c.html(errorPage(known.body.error.message), known.status);
  });
  return app;
}
