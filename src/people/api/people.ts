/**
 * The instance's people (`/vault/people`), for instance admins with the `admin` scope: the
 * list, and adding a person, which answers their one-time set-password link (shown once; the
 * password itself is never seen by anyone but them).
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errors, itemsOf, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import { forVault } from "../../vault/api/_router.ts";
import type { Person } from "../../store/ports/people.ts";
import { EMAIL_MAX, NAME_MAX } from "../people.ts";
import type { PeopleApi } from "./_router.ts";

/** A person as the API shows them (never their password hash). */
const PersonSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  instanceAdmin: z.boolean(),
  passwordSet: z.boolean().openapi({ description: "Whether they have set a password yet" }),
  createdAt: z.string(),
}).openapi("Person");

/** `person` as {@link PersonSchema}. */
export function personView(person: Person): z.infer<typeof PersonSchema> {
  const { id, email, name, instanceAdmin, createdAt } = person;
  return { id, email, name, instanceAdmin, passwordSet: person.passwordHash !== null, createdAt };
}

const listPeople = createRoute(forVault({
  method: "get",
  path: "/vault/people",
  summary: "The instance's people (instance admins)",
  responses: {
    200: json(itemsOf(PersonSchema), "People"),
    ...errors({ 403: "Not an instance admin, or no admin scope" }),
  },
}));

const addPerson = createRoute(forVault({
  method: "post",
  path: "/vault/people",
  summary: "Add a person; answers their one-time set-password link (7 days)",
  request: {
    body: requiredJson(
      z.object({
        email: z.string().min(3).max(EMAIL_MAX),
        name: z.string().max(NAME_MAX).default(""),
        instanceAdmin: z.boolean().default(false),
      }),
      "The person",
    ),
  },
  responses: {
    201: json(
      z.object({
        person: PersonSchema,
        setPasswordLink: z.string().openapi({ description: "Shown once; works once" }),
        expiresAt: z.string(),
      }),
      "Added",
    ),
    ...errors({
      400: "Malformed, or no email address",
      403: "Not an instance admin, or no admin scope",
      409: "Someone has this email already",
    }),
  },
}));

/**
 * Adds the people routes.
 *
 * @example
 * ```ts
 * addPeopleRoutes({ app, services, baseUrl, body });
 * ```
 */
export function addPeopleRoutes({ app, services, baseUrl, body }: PeopleApi): void {
  app.openapi(listPeople, async (c) => {
    const people = await services.people.list(c.var.person);
    return c.json({ items: people.map(personView) }, 200);
  });
  app.openapi({ ...addPerson, middleware: body }, async (c) => {
    const added = await services.people.add(c.var.person, c.req.valid("json"), baseUrl());
    return c.json({
      person: personView(added.person),
      setPasswordLink: added.link,
      expiresAt: new Date(added.expiresAt).toISOString(),
    }, 201);
  });
}
