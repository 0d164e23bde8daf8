/**
 * A database's members (`/vault/databases/{dbId}/members`), for its owners (the role owner and
 * the `admin` scope; src/people/access.ts `NEED.members`): the list with roles, inviting an
 * email with a role (answers the one-time invitation link, shown once), changing a role,
 * removing a member (which ends their sessions, and their tokens when this was their last
 * database: src/people/members.ts). A database keeps one owner at least: 409 `last_owner`.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import * as ids from "../../http/ids.ts";
import { errors, itemsOf, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import { forVault } from "../../vault/api/_router.ts";
import { EMAIL_MAX } from "../people.ts";
import type { PeopleApi } from "./_router.ts";

const RoleSchema = z.enum(["owner", "editor", "viewer"]).openapi("Role");

const MemberSchema = z.object({
  personId: z.string(),
  email: z.string(),
  name: z.string(),
  role: RoleSchema,
  since: z.string(),
}).openapi("Member");

const DatabaseParams = z.object({ dbId: ids.DatabaseIdSchema });
const MemberParams = z.object({ dbId: ids.DatabaseIdSchema, personId: ids.UserIdSchema });

const NOT_OWNER = {
  403: "Not an owner of this database, or no admin scope",
  404: "No such database (or not a member of it)",
} as const;

const listMembers = createRoute(forVault({
  method: "get",
  path: "/vault/databases/{dbId}/members",
  summary: "A database's members with their roles (owners)",
  request: { params: DatabaseParams },
  responses: { 200: json(itemsOf(MemberSchema), "Members"), ...errors(NOT_OWNER) },
}));

const inviteMember = createRoute(forVault({
  method: "post",
  path: "/vault/databases/{dbId}/members",
  summary: "Invite an email with a role: a one-time link (7 days), shown once",
  request: {
    params: DatabaseParams,
    body: requiredJson(
      z.object({ email: z.string().min(3).max(EMAIL_MAX), role: RoleSchema }),
      "Whom to invite, as what",
    ),
  },
  responses: {
    201: json(
      z.object({
        invitationLink: z.string().openapi({ description: "Shown once; works once" }),
        email: z.string(),
        role: RoleSchema,
        expiresAt: z.string(),
        mailed: z.boolean().openapi({ description: "Whether the mailer took it" }),
      }),
      "Invited",
    ),
    ...errors({ 400: "Malformed", ...NOT_OWNER, 409: "A member already" }),
  },
}));

const changeRole = createRoute(forVault({
  method: "patch",
  path: "/vault/databases/{dbId}/members/{personId}",
  summary: "Change a member's role",
  request: {
    params: MemberParams,
    body: requiredJson(z.object({ role: RoleSchema }), "The new role"),
  },
  responses: {
    200: json(MemberSchema, "The member"),
    ...errors({ 400: "Malformed", ...NOT_OWNER, 409: "The last owner" }),
  },
}));

const removeMember = createRoute(forVault({
  method: "delete",
  path: "/vault/databases/{dbId}/members/{personId}",
  summary: "Remove a member: their sessions end, and their tokens if it was their last database",
  request: { params: MemberParams },
  responses: {
    200: json(
      z.object({ sessionsEnded: z.number().int(), tokensRevoked: z.number().int() }),
      "Removed",
    ),
    ...errors({ ...NOT_OWNER, 409: "The last owner" }),
  },
}));

/**
 * Adds the members routes.
 *
 * @example
 * ```ts
 * addMemberRoutes({ app, services, baseUrl, body });
 * ```
 */
export function addMemberRoutes({ app, services, baseUrl, body }: PeopleApi): void {
  const { members, invitations } = services;
  app.openapi(listMembers, async (c) => {
    const items = await members.list(c.var.person, c.req.valid("param").dbId);
    return c.json({ items }, 200);
  });
  app.openapi({ ...inviteMember, middleware: body }, async (c) => {
    const { email, role } = c.req.valid("json");
    const made = await invitations.invite(
      c.var.person,
      c.req.valid("param").dbId,
      email,
      role,
      baseUrl(),
    );
    return c.json({
      invitationLink: made.link,
      email: made.email,
      role: made.role,
      expiresAt: new Date(made.expiresAt).toISOString(),
      mailed: made.mailed,
    }, 201);
  });
  app.openapi({ ...changeRole, middleware: body }, async (c) => {
    const { dbId, personId } = c.req.valid("param");
    const member = await members.setRole(c.var.person, dbId, personId, c.req.valid("json").role);
    return c.json(member, 200);
  });
  app.openapi(removeMember, async (c) => {
    const { dbId, personId } = c.req.valid("param");
    return c.json(await members.remove(c.var.person, dbId, personId), 200);
  });
}
