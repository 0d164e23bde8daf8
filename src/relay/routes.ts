/**
 * The relay's HTTP surface: intake, manifests, identity registry and owner queues.
 *
 * @module
 */
import { AddressRanges } from "../net/ip.ts";
import {
  errorContent as error,
  intQuery,
  jsonContent as json,
  newRouter,
} from "../http/openapi.ts";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type Config, publicBaseUrl } from "../config/index.ts";
import { ManifestSchema } from "../forms/manifest.ts";
import { SubmissionEnvelopeSchema, SubmissionIdSchema } from "../forms/payload.ts";
import { jsonBody } from "../http/body.ts";
import { ChallengeIdSchema, FormIdSchema, QueuePositionSchema } from "../http/ids.ts";
import { ApiError } from "../http/errors.ts";
import { rateLimit, type TokenBuckets } from "../http/rate_limit.ts";
import type { DatabaseRow } from "../store/keys.ts";
import { type AuthEnv, requireBearer, requireToken } from "./auth.ts";
import {
  completeRegistration,
  createUser,
  getUser,
  listDatabases,
  recipientOwner,
  startRegistration,
} from "./identity.ts";
import { originGuard } from "./cors.ts";
import type { FormDirectory } from "./manifests.ts";
import { ackQueue, listQueue } from "./queue.ts";
import {
  AckRequestSchema,
  AmendReceiptSchema,
  DatabaseSchema,
  FingerprintSchema,
  QueueItemSchema,
  ReceiptSchema,
  UserSchema,
} from "./schemas.ts";
import type { Intake } from "./submissions.ts";

/** What the relay routes need. */
export interface RelayDeps {
  kv: Deno.Kv;
  config: Config;
  intake: Intake;
  forms: FormDirectory;
  limiters: {
    submissions: TokenBuckets | null;
    owner: TokenBuckets | null;
  };
}

const owner = [{ ownerToken: [] }];

const postSubmission = createRoute({
  method: "post",
  path: "/submissions",
  tags: ["intake"],
  summary: "Submit a sealed envelope",
  description: "Anonymous for public forms. Idempotent on submissionId: the same id and bytes " +
    "again answer the same receipt; the same id with other bytes is a 409.",
  request: { body: { ...json(SubmissionEnvelopeSchema, "The envelope"), required: true } },
  responses: {
    200: json(ReceiptSchema, "Stored durably and queued for the recipient"),
    400: error("Required envelope fields missing or malformed"),
    403: error("origin_not_allowed: the form does not take submissions from this web origin"),
    404: error("Form not published, or recipientPubkey is not its key"),
    409: error("submissionId already used with other content"),
    413: error("Ciphertext too large"),
    429: error("Rate limited; see Retry-After"),
  },
});

const putSubmission = createRoute({
  method: "put",
  path: "/submissions/{submissionId}",
  tags: ["intake"],
  summary: "Amend a submission with its edit token",
  security: [{ editToken: [] }],
  request: {
    params: z.object({ submissionId: SubmissionIdSchema }),
    body: {
      ...json(SubmissionEnvelopeSchema, "The new envelope (payload mode Update)"),
      required: true,
    },
  },
  responses: {
    200: json(AmendReceiptSchema, "The amendment is queued as a new version"),
    400: error("Malformed envelope"),
    401: error("No edit token"),
    403: error("Wrong edit token, or origin_not_allowed (the form's allowed origins)"),
    404: error("Unknown submission or form"),
    410: error("The edit window is over"),
    413: error("Ciphertext too large"),
    429: error("Rate limited"),
  },
});

const getManifest = createRoute({
  method: "get",
  path: "/forms/{formId}/manifest",
  tags: ["forms"],
  summary: "A published form manifest, as published",
  request: { params: z.object({ formId: FormIdSchema }) },
  responses: {
    200: json(ManifestSchema, "The manifest"),
    404: error("Not published"),
  },
});

const putManifest = createRoute({
  method: "put",
  path: "/owner/forms/{formId}",
  tags: ["owner"],
  summary: "Publish (or republish) a form manifest",
  security: owner,
  request: {
    params: z.object({ formId: FormIdSchema }),
    body: { ...json(ManifestSchema, "The signed manifest"), required: true },
  },
  responses: {
    200: json(
      z.object({ formId: z.string(), schemaVersion: z.number(), publishedAt: z.string() }),
      "Published",
    ),
    400: error("Malformed manifest"),
    401: error("No owner token"),
    403: error("The recipient key is not one of the user's databases"),
    409: error("The form id belongs to another user, or the version went backwards"),
    413: error("Manifest too large"),
  },
});

const postUser = createRoute({
  method: "post",
  path: "/admin/users",
  tags: ["admin"],
  summary: "Create a user and its first owner token",
  security: [{ adminToken: [] }],
  request: {
    body: { ...json(z.object({ name: z.string().min(1).max(200) }), "The user"), required: true },
  },
  responses: {
    201: json(
      z.object({ user: UserSchema, ownerToken: z.string() }),
      "Created; the token is shown once",
    ),
    400: error("Malformed request"),
    401: error("No admin token"),
    403: error("Not an admin token"),
  },
});

const getMe = createRoute({
  method: "get",
  path: "/owner/me",
  tags: ["owner"],
  summary: "The token's user and databases",
  security: owner,
  responses: {
    200: json(z.object({ user: UserSchema, databases: z.array(DatabaseSchema) }), "The user"),
    401: error("No owner token"),
  },
});

const postDatabase = createRoute({
  method: "post",
  path: "/owner/databases",
  tags: ["owner"],
  summary: "Start registering a recipient key: answers a challenge sealed to it",
  security: owner,
  request: {
    body: {
      ...json(
        z.object({
          name: z.string().min(1).max(200),
          publicKey: z.string().max(128).openapi({
            description: "Base64 X25519 public key (32 bytes)",
          }),
        }),
        "The key to register",
      ),
      required: true,
    },
  },
  responses: {
    201: json(
      z.object({ challengeId: z.string(), sealedChallenge: z.string(), expiresAtUtc: z.string() }),
      "Open sealedChallenge with the private key and POST it to /owner/databases/verify",
    ),
    400: error("Malformed key"),
    401: error("No owner token"),
    409: error("Key already registered"),
  },
});

const verifyDatabase = createRoute({
  method: "post",
  path: "/owner/databases/verify",
  tags: ["owner"],
  summary: "Finish registering a recipient key with the opened challenge",
  security: owner,
  request: {
    body: {
      ...json(
        z.object({ challengeId: ChallengeIdSchema, challenge: z.string().min(1).max(1024) }),
        "The opened challenge, base64",
      ),
      required: true,
    },
  },
  responses: {
    201: json(DatabaseSchema, "Registered"),
    400: error("Malformed"),
    401: error("No owner token"),
    403: error("Wrong answer"),
    404: error("Unknown or expired challenge"),
    409: error("Key already registered"),
  },
});

const getQueue = createRoute({
  method: "get",
  path: "/owner/queues/{fingerprint}",
  tags: ["owner"],
  summary: "Pending envelopes of a recipient key, in arrival order",
  security: owner,
  request: {
    params: z.object({ fingerprint: FingerprintSchema }),
    query: z.object({
      after: QueuePositionSchema.optional().openapi({
        description: "Cursor: the nextCursor of the previous page",
      }),
      limit: intQuery(1, 500).default(100),
    }),
  },
  responses: {
    200: json(
      z.object({ items: z.array(QueueItemSchema), nextCursor: z.string().nullable() }),
      "A page of the queue",
    ),
    401: error("No owner token"),
    404: error("Unknown key, or another user's (the same answer)"),
  },
});

const postAck = createRoute({
  method: "post",
  path: "/owner/queues/{fingerprint}/ack",
  tags: ["owner"],
  summary: "Acknowledge envelopes: they leave the queue (idempotent)",
  security: owner,
  request: {
    params: z.object({ fingerprint: FingerprintSchema }),
    body: { ...json(AckRequestSchema, "What to ack"), required: true },
  },
  responses: {
    200: json(z.object({ acked: z.number().int() }), "How many versions left the queue"),
    400: error("Malformed"),
    401: error("No owner token"),
    404: error("Unknown key, or another user's (the same answer)"),
  },
});

function publicDatabase(db: DatabaseRow) {
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
 * Only the user who registered `fp` may touch its queue; another user's key answers exactly
 * like an unknown one (no existence oracle).
 */
async function assertQueueOwner(kv: Deno.Kv, fp: string, userId: string) {
  const registered = await recipientOwner(kv, fp);
  if (!registered || registered.userId !== userId) {
    throw new ApiError(404, "recipient_not_found", "None of your databases has this key");
  }
}

/** Mounts the relay's routes on a new router. */
export function relayRoutes(deps: RelayDeps): OpenAPIHono<AuthEnv> {
  const { kv, config, intake, forms } = deps;
  const app = newRouter();
  const trust = new AddressRanges(config.server.trusted_proxies);
  const envelopeCap = Math.ceil(config.intake.max_ciphertext_bytes / 3) * 4 + 16 * 1024;
  const tooLarge = {
    code: "ciphertext_too_large",
    message: `Ciphertext exceeds the ${config.intake.max_ciphertext_bytes}-byte limit`,
  };
  const submissionLimits = [
    rateLimit(deps.limiters.submissions, trust),
    jsonBody(() => envelopeCap, tooLarge),
    originGuard(forms, publicBaseUrl(config)), // a form's allowed origins (src/relay/cors.ts)
  ];
  const ownerAuth = requireToken(kv, "owner");
  const ownerLimit = rateLimit(deps.limiters.owner, trust);
  const smallJson = jsonBody(() => 64 * 1024, {
    code: "payload_too_large",
    message: "Request body exceeds 64 KiB",
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "ownerToken", {
    type: "http",
    scheme: "bearer",
    description: "Owner token (spo_…)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "Admin token (spa_…)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "editToken", {
    type: "http",
    scheme: "bearer",
    description: "The editToken a submission's POST answered",
  });

  app.openapi({ ...postSubmission, middleware: submissionLimits }, async (c) => {
    const receipt = await intake.submit(c.req.valid("json"));
    return c.json({ submissionId: receipt.submissionId, editToken: receipt.editToken }, 200);
  });

  app.openapi({ ...putSubmission, middleware: submissionLimits }, async (c) => {
    const token = requireBearer(c);
    const { submissionId } = c.req.valid("param");
    return c.json(await intake.amend(submissionId, token, c.req.valid("json")), 200);
  });

  app.openapi(getManifest, async (c) => {
    const form = await forms.get(c.req.valid("param").formId);
    if (!form) throw new ApiError(404, "form_not_found", "This form is not published");
    return c.json(form.manifest as z.infer<typeof ManifestSchema>, 200);
  });

  const manifestBody = jsonBody(() => config.intake.max_manifest_bytes, {
    code: "manifest_too_large",
    message: `Manifest exceeds ${config.intake.max_manifest_bytes} bytes`,
  });
  app.openapi({ ...putManifest, middleware: [ownerLimit, ownerAuth, manifestBody] }, async (c) => {
    const { formId } = c.req.valid("param");
    const { row } = await forms.publish(c.var.token.userId!, formId, c.req.valid("json"));
    return c.json(
      { formId: row.formId, schemaVersion: row.schemaVersion, publishedAt: row.publishedAt },
      200,
    );
  });

  app.openapi(
    { ...postUser, middleware: [ownerLimit, requireToken(kv, "admin"), smallJson] },
    async (c) => {
      const { user, ownerToken } = await createUser(kv, c.req.valid("json").name);
      return c.json({ user, ownerToken }, 201);
    },
  );

  app.openapi({ ...getMe, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const userId = c.var.token.userId!;
    const user = await getUser(kv, userId);
    if (!user) throw new ApiError(401, "unauthorized", "The token's user no longer exists");
    const databases = (await listDatabases(kv, userId)).map(publicDatabase);
    return c.json({ user, databases }, 200);
  });

  app.openapi({ ...postDatabase, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { name, publicKey } = c.req.valid("json");
    return c.json(await startRegistration(kv, c.var.token.userId!, name, publicKey), 201);
  });

  app.openapi({ ...verifyDatabase, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { challengeId, challenge } = c.req.valid("json");
    const db = await completeRegistration(kv, c.var.token.userId!, challengeId, challenge);
    return c.json(publicDatabase(db), 201);
  });

  app.openapi({ ...getQueue, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const { fingerprint } = c.req.valid("param");
    await assertQueueOwner(kv, fingerprint, c.var.token.userId!);
    const { after, limit } = c.req.valid("query");
    const page = await listQueue(kv, fingerprint, after ? Number(after) : 0, limit);
    // Where a large ciphertext's chunks lie is the relay's business.
    const items = page.items.map(({ chunkSet: _, ...item }) => item);
    return c.json({ items, nextCursor: page.nextCursor }, 200);
  });

  app.openapi({ ...postAck, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { fingerprint } = c.req.valid("param");
    await assertQueueOwner(kv, fingerprint, c.var.token.userId!);
    const { seqs } = c.req.valid("json");
    return c.json({ acked: await ackQueue(kv, fingerprint, seqs) }, 200);
  });

  return app;
}
