/**
 * Zod schemas of the relay's requests and responses (they validate requests and generate
 * the OpenAPI document).
 *
 * @module
 */
import { z } from "@hono/zod-openapi";
import { Sha256HexSchema } from "../http/ids.ts";

/** What POST /submissions answers. */
export const ReceiptSchema = z.object({
  submissionId: z.string(),
  editToken: z.string().openapi({ description: "Bearer token for PUT /submissions/{id}" }),
}).openapi("SubmissionReceipt");

/** What PUT /submissions/{id} answers. */
export const AmendReceiptSchema = ReceiptSchema.extend({
  version: z.number().int().openapi({ description: "Version of the submission now queued" }),
}).openapi("AmendReceipt");

/** Lowercase hex SHA-256 of a raw recipient key. */
export const FingerprintSchema = Sha256HexSchema;

/** A user as the API shows it. */
export const UserSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
}).openapi("User");

/** A database (recipient key) as the API shows it. */
export const DatabaseSchema = z.object({
  id: z.string(),
  userId: z.string(),
  name: z.string(),
  publicKey: z.string(),
  fingerprint: z.string(),
  createdAt: z.string(),
}).openapi("Database");

/** A pending envelope in a recipient's queue. */
export const QueueItemSchema = z.object({
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
export const AckRequestSchema = z.object({
  seqs: z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(1000).openapi({
    description: "Queue positions (`seq` of the queue items) to remove",
  }),
}).openapi("AckRequest");
