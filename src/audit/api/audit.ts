/**
 * The audit log over the API: `GET /vault/audit`, a page of entries newest first, filtered by
 * person, database and action (an instance admin's token with the `admin` scope), and
 * `GET /vault/audit/head`, the head signed with the manifest key, for anyone signed in who
 * verifies an export against it (`sealpost audit verify`). Mounted from src/app.ts with the
 * vault (roles `all` and `vault`).
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { type PersonEnv, requirePerson } from "../../auth/index.ts";
import { DatabaseIdSchema, UserIdSchema } from "../../http/ids.ts";
import {
  errors,
  forOwner,
  intQuery,
  jsonContent as json,
  newRouter,
  pageOf,
} from "../../http/openapi.ts";
import type { Access } from "../../people/access.ts";
import type { PersonTokenSource } from "../../people/person_tokens.ts";
import { AUDIT_ACTIONS, type AuditPort } from "../../store/ports/audit.ts";
import type { AuditLog } from "../log.ts";
import { AUDIT_PAGE_MAX, auditPage } from "../pages.ts";

const EventSchema = z.object({
  action: z.enum(AUDIT_ACTIONS),
  personId: z.string().nullable(),
  tokenId: z.string().optional(),
  databaseId: z.string().optional(),
  target: z.object({ kind: z.string(), id: z.string() }).optional(),
  outcome: z.enum(["ok", "failure"]).optional(),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
}).openapi("AuditEvent");

const EntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  prevHash: z.string(),
  event: EventSchema,
  hash: z.string(),
}).openapi("AuditEntry");

const HeadSchema = z.object({
  seq: z.number().int(),
  hash: z.string(),
  alg: z.literal("ed25519"),
  publicKey: z.string(),
  signature: z.string(),
}).openapi("AuditHead");

const listAudit = createRoute(forOwner("audit", {
  method: "get",
  path: "/vault/audit",
  summary: "The audit log, newest first (an instance admin with the admin scope)",
  description: "Who did what, never content. `nextCursor` is the `before` of the next page.",
  request: {
    query: z.object({
      personId: UserIdSchema.optional(),
      databaseId: DatabaseIdSchema.optional(),
      action: z.enum(AUDIT_ACTIONS).optional(),
      before: intQuery(1, Number.MAX_SAFE_INTEGER).optional(),
      limit: intQuery(1, AUDIT_PAGE_MAX).default(100),
    }),
  },
  responses: {
    200: json(pageOf(EntrySchema), "Entries"),
    ...errors({ 400: "Invalid filter or cursor", 403: "Not an instance admin's admin token" }),
  },
}));

const getHead = createRoute(forOwner("audit", {
  method: "get",
  path: "/vault/audit/head",
  summary: "The audit log's head, signed with the manifest key",
  responses: { 200: json(HeadSchema, "The signed head (seq 0 for an empty log)") },
}));

/** What the audit routes need. */
export interface AuditRouteDeps {
  /** Where people's tokens are checked. */
  tokens: PersonTokenSource;
  /** Who is an instance admin. */
  access: Access;
  /** The log, for its signed head. */
  log: AuditLog;
  /** The log's store, for pages. */
  port: AuditPort;
}

/**
 * The audit routes on a new router.
 *
 * @example
 * ```ts
 * app.route("/", auditRoutes({ tokens, access, log: vault.audit, port: vault.store.audit }));
 * ```
 */
export function auditRoutes(deps: AuditRouteDeps): OpenAPIHono<PersonEnv> {
  const app = newRouter<PersonEnv>();
  const auth: MiddlewareHandler[] = [requirePerson(deps.tokens)];
  app.openapi({ ...listAudit, middleware: auth }, async (c) => {
    deps.access.admin(c.var.person);
    const { before, limit, ...filters } = c.req.valid("query");
    const page = await auditPage(deps.port, { before, limit, ...filters });
    return c.json({
      items: page.items,
      nextCursor: page.next === null ? null : String(page.next),
    }, 200);
  });
  app.openapi(
    { ...getHead, middleware: auth },
    async (c) => c.json(await deps.log.signedHead(), 200),
  );
  return app;
}
