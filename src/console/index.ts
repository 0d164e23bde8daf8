/**
 * The owner console: web pages under `/console`, served by the vault only (it alone holds the
 * keys and sees plaintext). Server-rendered with hono/jsx, plain HTML forms with CSRF tokens,
 * a strict CSP with no inline script; it uses the vault and webhook services in-process.
 *
 * - `sessions.ts`, `context.ts`: server-side sessions in KV, cookies, CSRF, headers.
 * - `auth_routes.tsx`: sign-in, sign-out, the front page.
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
import {
  CONSOLE_CSS,
  CONSOLE_JS,
  CONSOLE_SCRIPT_PATH,
  FORM_CSS,
  FORM_STYLE_PATH,
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
import { tokenRoutes } from "./token_routes.tsx";
import { webhookRoutes } from "./webhook_routes.tsx";
import { databaseRoutes } from "./database_routes.tsx";
import { invitationRoutes } from "./invitation_routes.tsx";

/** What a form or record id can be (as the owner API's path parameters allow). */
const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Paths under /console/ served without a session. */
const OPEN = new Set([
  "/console",
  "/console/sign-in",
  "/console/invitations",
  TICKET_SCRIPT_PATH,
  "/console/assets/console.css",
  CONSOLE_SCRIPT_PATH,
  FORM_STYLE_PATH,
]);

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
  // Every console route but the sign-in form and the stylesheet needs a session (and CSRF).
  const guard = requireSession(deps);
  app.use("/console/*", (c, next) => OPEN.has(c.req.path) ? next() : guard(c, next));
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
  app.get(FORM_STYLE_PATH, (c) => {
    c.header("content-type", "text/css; charset=utf-8");
    return c.body(FORM_CSS);
  });
  app.route("/", authRoutes(deps));
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
