/**
 * The identity registry over HTTP: the admin's `POST /admin/users`, the owner's
 * `GET /owner/me`, and registering a recipient key (`POST /owner/databases`, then
 * `/owner/databases/verify`); their OpenAPI definitions, schemas and handlers. The registry
 * itself is `../identity.ts`.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type AuthEnv, requireAdmin } from "../../auth/index.ts";
import { type Config, publicBaseUrl } from "../../config/index.ts";
import { Unauthenticated } from "../../errors/index.ts";
import { ChallengeIdSchema } from "../../http/ids.ts";
import {
  errors,
  forAdmin,
  forOwner,
  jsonContent as json,
  requiredJson,
} from "../../http/openapi.ts";
import type { IdentityPort, RelayDatabase } from "../../store/ports/identity.ts";
import { completeRegistration, createUser, startRegistration } from "../identity.ts";
import type { RelayGuards } from "./_guards.ts";

/** A user as the API shows it. */
const UserSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
}).openapi("User");

/** A database (recipient key) as the API shows it. */
const DatabaseSchema = z.object({
  id: z.string(),
  userId: z.string(),
  name: z.string(),
  publicKey: z.string(),
  fingerprint: z.string(),
  createdAt: z.string(),
}).openapi("Database");

/** `POST /admin/users`: create a user and its first owner token. */
const postUser = createRoute(forAdmin({
  method: "post",
  path: "/admin/users",
  summary: "Create a user and its first owner token",
  request: {
    body: requiredJson(z.object({ name: z.string().min(1).max(200) }), "The user"),
  },
  responses: {
    201: json(
      z.object({ user: UserSchema, ownerToken: z.string() }),
      "Created; the token is shown once",
    ),
    ...errors({ 400: "Malformed request" }),
  },
}));

/** `GET /owner/me`: the token's user and databases. */
const getMe = createRoute(forOwner("owner", {
  method: "get",
  path: "/owner/me",
  summary: "The token's user and databases",
  responses: {
    200: json(
      z.object({
        user: UserSchema,
        databases: z.array(DatabaseSchema),
        relayUrl: z.string().nullable().openapi({
          description: "The relay's public address (its base_url), which published manifests " +
            "carry; null when it has none set (then a vault uses the URL it calls the relay at)",
        }),
      }),
      "The user",
    ),
  },
}));

/** `POST /owner/databases`: start registering a recipient key. */
const postDatabase = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/databases",
  summary: "Start registering a recipient key: answers a challenge sealed to it",
  request: {
    body: requiredJson(
      z.object({
        name: z.string().min(1).max(200),
        publicKey: z.string().max(128).openapi({
          description: "Base64 X25519 public key (32 bytes)",
        }),
      }),
      "The key to register",
    ),
  },
  responses: {
    201: json(
      z.object({ challengeId: z.string(), sealedChallenge: z.string(), expiresAtUtc: z.string() }),
      "Open sealedChallenge with the private key and POST it to /owner/databases/verify",
    ),
    ...errors({ 400: "Malformed key", 409: "Key already registered" }),
  },
}));

/** `POST /owner/databases/verify`: finish registering a recipient key. */
const verifyDatabase = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/databases/verify",
  summary: "Finish registering a recipient key with the opened challenge",
  request: {
    body: requiredJson(
      z.object({ challengeId: ChallengeIdSchema, challenge: z.string().min(1).max(1024) }),
      "The opened challenge, base64",
    ),
  },
  responses: {
    201: json(DatabaseSchema, "Registered"),
    ...errors({
      400: "Malformed",
      403: "Wrong answer",
      404: "Unknown or expired challenge",
      409: "Key already registered",
    }),
  },
}));

/** A database as the API shows it. */
function publicDatabase(db: RelayDatabase) {
  return {
    id: db.id,
    userId: db.userId,
    name: db.name,
    publicKey: db.publicKey,
    fingerprint: db.fingerprint,
    createdAt: db.createdAt,
  };
}

/**
 * Mounts the identity routes on `app`: users (admin), the owner's own view, and key
 * registration.
 *
 * @example
 * ```ts
 * mountIdentity(app, { config, identity }, guards);
 * ```
 */
export function mountIdentity(
  app: OpenAPIHono<AuthEnv>,
  { config, identity }: { config: Config; identity: IdentityPort },
  { ownerLimit, ownerAuth, smallJson }: RelayGuards,
): void {
  app.openapi(
    { ...postUser, middleware: [ownerLimit, requireAdmin(identity), smallJson] },
    async (c) => {
      const { user, ownerToken } = await createUser(identity, c.req.valid("json").name);
      return c.json({ user, ownerToken }, 201);
    },
  );

  app.openapi({ ...getMe, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const userId = c.var.owner.userId;
    const user = await identity.getUser(userId);
    if (!user) throw new Unauthenticated("unauthorized", "The token's user no longer exists");
    const databases = (await identity.listDatabases(userId)).map(publicDatabase);
    // A public address only when one is configured: base_url, or the ACME domain.
    const named = config.base_url || config.server.tls.acme.enabled;
    const relayUrl = named ? publicBaseUrl(config) : null;
    return c.json({ user, databases, relayUrl }, 200);
  });

  app.openapi({ ...postDatabase, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { name, publicKey } = c.req.valid("json");
    return c.json(await startRegistration(identity, c.var.owner.userId, name, publicKey), 201);
  });

  app.openapi({ ...verifyDatabase, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { challengeId, challenge } = c.req.valid("json");
    const db = await completeRegistration(identity, c.var.owner.userId, challengeId, challenge);
    return c.json(publicDatabase(db), 201);
  });
}
