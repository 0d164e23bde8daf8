/**
 * The OpenAPI definitions (path, request and response schemas) of the relay's routes; their
 * handlers are in src/relay/routes.ts.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorContent as error, intQuery, jsonContent as json } from "../http/openapi.ts";
import { ManifestSchema } from "../forms/manifest.ts";
import { ClosedMessageSchema } from "../forms/closure.ts";
import {
  IntakeEnvelopeSchema,
  SubmissionEnvelopeSchema,
  SubmissionIdSchema,
} from "../forms/payload.ts";
import {
  ChallengeIdSchema,
  FormIdSchema,
  LeaseHolderSchema,
  QueuePositionSchema,
} from "../http/ids.ts";
import {
  AckRequestSchema,
  AmendReceiptSchema,
  DatabaseSchema,
  FingerprintSchema,
  QueueItemSchema,
  ReceiptSchema,
  UserSchema,
} from "./schemas.ts";

/** The owner token security requirement. */
const owner = [{ ownerToken: [] }];

/** `POST /submissions`: submit a sealed envelope. */
export const postSubmission = createRoute({
  method: "post",
  path: "/submissions",
  tags: ["intake"],
  summary: "Submit a sealed envelope",
  description: "Anonymous for public forms. Idempotent on submissionId: the same id and bytes " +
    "again answer the same receipt; the same id with other bytes is a 409.",
  request: { body: { ...json(IntakeEnvelopeSchema, "The envelope"), required: true } },
  responses: {
    200: json(ReceiptSchema, "Stored durably and queued for the recipient"),
    400: error("Required envelope fields missing or malformed"),
    403: error("origin_not_allowed: the form does not take submissions from this web origin"),
    404: error("Form not published, or recipientPubkey is not its key"),
    409: error("submissionId already used with other content"),
    410: error(
      "form_closed: the owner closed the form; the message is the owner's (our addition: an " +
        "open form answers exactly as the specification says)",
    ),
    413: error("Ciphertext too large"),
    429: error("Rate limited; see Retry-After"),
  },
});

/** `PUT /submissions/{submissionId}`: amend a submission with its edit token. */
export const putSubmission = createRoute({
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
    410: error(
      "edit_window_closed: the edit window is over; form_closed: the owner closed the form " +
        "(the message is the owner's)",
    ),
    413: error("Ciphertext too large"),
    429: error("Rate limited"),
  },
});

/** `GET /forms/{formId}/manifest`: a published manifest. */
export const getManifest = createRoute({
  method: "get",
  path: "/forms/{formId}/manifest",
  tags: ["forms"],
  summary: "A published form manifest, as published",
  request: { params: z.object({ formId: FormIdSchema }) },
  responses: {
    200: json(ManifestSchema, "The manifest"),
    404: error("Not published"),
    410: error("form_closed: the owner closed the form; the message is the owner's"),
  },
});

const formParams = z.object({ formId: FormIdSchema });
const closureResponse = z.object({
  formId: z.string(),
  closed: z.object({ message: z.string(), closedAt: z.string() }).nullable(),
});

/** `POST /owner/forms/{formId}/close`: close a published form. */
export const closeForm = createRoute({
  method: "post",
  path: "/owner/forms/{formId}/close",
  tags: ["owner"],
  summary: "Close a published form: intake and its page answer 410 form_closed",
  description: "The message (plain text) is what senders read; closing again replaces it.",
  security: owner,
  request: {
    params: formParams,
    body: {
      ...json(z.object({ message: ClosedMessageSchema.default("") }), "The owner's message"),
      required: true,
    },
  },
  responses: {
    200: json(closureResponse, "Closed"),
    400: error("Malformed message"),
    401: error("No owner token"),
    404: error("Not one of the user's published forms"),
  },
});

/** `POST /owner/forms/{formId}/reopen`: reopen a closed form. */
export const reopenForm = createRoute({
  method: "post",
  path: "/owner/forms/{formId}/reopen",
  tags: ["owner"],
  summary: "Reopen a closed form (a no-op for an open one)",
  security: owner,
  request: { params: formParams },
  responses: {
    200: json(closureResponse, "Open"),
    401: error("No owner token"),
    404: error("Not one of the user's published forms"),
  },
});

/** `DELETE /owner/forms/{formId}`: unpublish a form. */
export const unpublishForm = createRoute({
  method: "delete",
  path: "/owner/forms/{formId}",
  tags: ["owner"],
  summary: "Unpublish a form: its manifest, page and intake answer as for an unknown form",
  description: "Envelopes already queued stay in the owner's queue.",
  security: owner,
  request: { params: formParams },
  responses: {
    204: { description: "Unpublished" },
    401: error("No owner token"),
    404: error("Not one of the user's published forms"),
  },
});

/** `PUT /owner/forms/{formId}`: publish a form manifest. */
export const putManifest = createRoute({
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

/** `POST /admin/users`: create a user and its first owner token. */
export const postUser = createRoute({
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

/** `GET /owner/me`: the token's user and databases. */
export const getMe = createRoute({
  method: "get",
  path: "/owner/me",
  tags: ["owner"],
  summary: "The token's user and databases",
  security: owner,
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
    401: error("No owner token"),
  },
});

/** `POST /owner/databases`: start registering a recipient key. */
export const postDatabase = createRoute({
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

/** `POST /owner/databases/verify`: finish registering a recipient key. */
export const verifyDatabase = createRoute({
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

/** `GET /owner/queues/{fingerprint}`: a page of a recipient key's queue. */
export const getQueue = createRoute({
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
      lease: intQuery(1, 300).optional().openapi({
        description: "Seconds to lease the envelopes answered: other leasing reads skip them " +
          "until they are acknowledged or the lease ends, so several vault workers split one " +
          "queue. Without it every pending envelope is listed.",
      }),
      holder: LeaseHolderSchema.optional().openapi({
        description: "With lease: the leasing worker's name (1-64 of A-Z a-z 0-9 _ -). A " +
          "read by the same holder takes that holder's leased envelopes again, so a worker " +
          "that lost a page (a failed or cut-off read) gets it back at once instead of after " +
          "the lease. Without it each leasing read is a holder of its own.",
      }),
      wait: intQuery(0, 30).optional().openapi({
        description: "Seconds to wait, when there is nothing to answer, for envelopes to " +
          "arrive (long poll); the page is answered as soon as there are some, else empty " +
          "at the end of the wait.",
      }),
    }),
  },
  responses: {
    200: json(
      z.object({ items: z.array(QueueItemSchema), nextCursor: z.string().nullable() }),
      "A page of the queue",
    ),
    400: error("Malformed cursor, limit, lease, holder or wait"),
    401: error("No owner token"),
    404: error("Unknown key, or another user's (the same answer)"),
  },
});

/** `POST /owner/queues/{fingerprint}/ack`: acknowledge queued envelopes. */
export const postAck = createRoute({
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
