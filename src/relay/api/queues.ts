/**
 * The owner's queues over HTTP: `GET /owner/queues/{fingerprint}` (a page of a recipient
 * key's pending envelopes, leased or long-polled) and `POST /owner/queues/{fingerprint}/ack`;
 * their OpenAPI definitions, schemas and handlers. The queue itself is `../queue.ts`.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { assertOwns, type AuthEnv } from "../../auth/index.ts";
import { NotFound } from "../../errors/index.ts";
import { LeaseHolderSchema, QueuePositionSchema, Sha256HexSchema } from "../../http/ids.ts";
import {
  errors,
  forOwner,
  intQuery,
  jsonContent as json,
  pageOf,
  requiredJson,
} from "../../http/openapi.ts";
import type { EnvelopePort } from "../../store/ports/envelopes.ts";
import type { IdentityPort } from "../../store/ports/identity.ts";
import { ackQueue, listQueue } from "../queue.ts";
import type { RelayGuards } from "./_guards.ts";

/** Lowercase hex SHA-256 of a raw recipient key. */
const FingerprintSchema = Sha256HexSchema;

/** A pending envelope in a recipient's queue. */
const QueueItemSchema = z.object({
  seq: z.number().int(),
  submissionId: z.string(),
  version: z.number().int().openapi({
    description: "1: a new submission (POST /submissions); 2 and up: an amendment " +
      "(PUT /submissions/{submissionId}). The vault checks the sealed payload's mode against it.",
  }),
  formId: z.string(),
  recipientPubkey: z.string(),
  submitterId: z.string().nullable(),
  receivedAt: z.string(),
  ciphertext: z.string(),
}).openapi("QueueItem");

/** Body of POST /owner/queues/{fingerprint}/ack. */
const AckRequestSchema = z.object({
  seqs: z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(1000).openapi({
    description: "Queue positions (`seq` of the queue items) to remove",
  }),
}).openapi("AckRequest");

/** `GET /owner/queues/{fingerprint}`: a page of a recipient key's queue. */
const getQueue = createRoute(forOwner("owner", {
  method: "get",
  path: "/owner/queues/{fingerprint}",
  summary: "Pending envelopes of a recipient key, in arrival order",
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
      pageOf(QueueItemSchema),
      "A page of the queue",
    ),
    ...errors({
      400: "Malformed cursor, limit, lease, holder or wait",
      404: "Unknown key, or another user's (the same answer)",
    }),
  },
}));

/** `POST /owner/queues/{fingerprint}/ack`: acknowledge queued envelopes. */
const postAck = createRoute(forOwner("owner", {
  method: "post",
  path: "/owner/queues/{fingerprint}/ack",
  summary: "Acknowledge envelopes: they leave the queue (idempotent)",
  request: {
    params: z.object({ fingerprint: FingerprintSchema }),
    body: requiredJson(AckRequestSchema, "What to ack"),
  },
  responses: {
    200: json(z.object({ acked: z.number().int() }), "How many versions left the queue"),
    ...errors({
      400: "Malformed",
      404: "Unknown key, or another user's (the same answer)",
    }),
  },
}));

/**
 * Only the user who registered `fp` may touch its queue; another user's key answers exactly
 * like an unknown one (no existence oracle).
 */
async function assertQueueOwner(identity: IdentityPort, fp: string, userId: string) {
  assertOwns(
    userId,
    (await identity.recipientOwner(fp))?.userId,
    () => new NotFound("recipient_not_found", "None of your databases has this key"),
  );
}

/**
 * Mounts the queue routes on `app`: a page of a queue, and its acknowledgement.
 *
 * @example
 * ```ts
 * mountQueues(app, { identity, envelopes }, guards);
 * ```
 */
export function mountQueues(
  app: OpenAPIHono<AuthEnv>,
  { identity, envelopes }: { identity: IdentityPort; envelopes: EnvelopePort },
  { ownerLimit, ownerAuth, smallJson }: RelayGuards,
): void {
  app.openapi({ ...getQueue, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const { fingerprint } = c.req.valid("param");
    await assertQueueOwner(identity, fingerprint, c.var.owner.userId);
    const { after, limit, lease, holder, wait } = c.req.valid("query");
    const page = await listQueue(envelopes, fingerprint, after ? Number(after) : 0, limit, {
      // What a holder got is hidden from every other holder's read; an unnamed leasing
      // request is a holder of its own.
      lease: lease ? { holder: holder ?? crypto.randomUUID(), seconds: lease } : undefined,
      waitSeconds: wait,
      signal: c.req.raw.signal, // the server's shutdown ends a wait
    });
    return c.json({ items: page.items, nextCursor: page.nextCursor }, 200);
  });

  app.openapi({ ...postAck, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { fingerprint } = c.req.valid("param");
    await assertQueueOwner(identity, fingerprint, c.var.owner.userId);
    const { seqs } = c.req.valid("json");
    return c.json({ acked: await ackQueue(envelopes, fingerprint, seqs) }, 200);
  });
}
