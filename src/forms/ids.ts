/**
 * The syntax of every id and cursor: every route's path, query and body takes its ids from
 * these schemas (through `src/http/ids.ts`), so a malformed, over-long or multi-byte id is a
 * 400 before it can reach a store key (Deno KV refuses keys over 2 KiB with an exception). Pure
 * zod, so the SDK shares them (submission and form ids, hashes).
 *
 * Every id here is ASCII and at most 128 characters; a cursor at most 1024.
 *
 * @module
 */
import { z } from "zod";

/** Ids the service makes or accepts from owners: 1 to 128 of `A-Z a-z 0-9 _ -`. */
export const USER_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** A SHA-256 as 64 lowercase hex characters. */
export const HASH_PATTERN = /^[0-9a-f]{64}$/;

const WORD_ID = "Must be 1 to 128 characters of A-Z, a-z, 0-9, _ and -";

/** An id of `A-Z a-z 0-9 _ -`, 1 to `max` characters. */
function wordId(max: number): z.ZodString {
  return z.string().regex(new RegExp(`^[A-Za-z0-9_-]{1,${max}}$`), {
    message: `Must be 1 to ${max} characters of A-Z, a-z, 0-9, _ and -`,
  });
}

/** `length` lowercase hex characters. */
function hexId(length: number, what: string): z.ZodString {
  return z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`), {
    message: `Must be ${length} lowercase hex characters${what}`,
  });
}

/** A submission id: a UUIDv4 without dashes, 32 lowercase hex characters. */
export const SubmissionIdSchema: z.ZodString = hexId(32, " (a UUIDv4 without dashes)");

/** A form id: 1 to 128 of `A-Z a-z 0-9 _ -`. */
export const FormIdSchema: z.ZodString = z.string().regex(USER_ID_PATTERN, { message: WORD_ID });

/** A user id (also a blob key's first part): 1 to 128 of `A-Z a-z 0-9 _ -`. */
export const UserIdSchema: z.ZodString = z.string().regex(USER_ID_PATTERN, { message: WORD_ID });

/** A database id: 1 to 128 of `A-Z a-z 0-9 _ -`. */
export const DatabaseIdSchema: z.ZodString = wordId(128);

/** A record id: 1 to 64 of `A-Z a-z 0-9 _ -` (a submission id, or a random one). */
export const RecordIdSchema: z.ZodString = wordId(64);

/** A vault worker's name as the holder of queue leases (`holder` of the queue route). */
export const LeaseHolderSchema: z.ZodString = wordId(64);

/** 64 lowercase hex characters: a SHA-256 (a file's hash, a recipient key's fingerprint). */
export const Sha256HexSchema: z.ZodString = z.string().regex(HASH_PATTERN, {
  message: "Must be a SHA-256 as 64 lowercase hex characters",
});

/** A registration challenge id: 32 lowercase hex characters. */
export const ChallengeIdSchema: z.ZodString = hexId(32, "");

/** A webhook id: 24 lowercase hex characters. */
export const WebhookIdSchema: z.ZodString = hexId(24, "");

/** A person's API token id: 24 lowercase hex characters. */
export const TokenIdSchema: z.ZodString = hexId(24, "");

/** A delivery id: 32 lowercase hex characters. */
export const DeliveryIdSchema: z.ZodString = hexId(32, "");

/** A quarantine row id: `{submissionId}.{version}`. */
export const QuarantineIdSchema: z.ZodString = z.string().regex(
  /^[0-9a-f]{32}\.[1-9][0-9]{0,14}$/,
  {
    message: "Must be {submissionId}.{version}",
  },
);

/** A list cursor the API handed out (Deno KV's: base64url), at most 1024 characters. */
export const CursorSchema: z.ZodString = z.string().regex(/^[A-Za-z0-9_-]{1,1024}={0,2}$/, {
  message: "Must be the nextCursor of the previous page",
});

const POSITION = "Must be the nextCursor (a queue position) of the previous page";

/** A queue position (`after`): decimal digits of a whole number up to 2^53 - 1. */
export const QueuePositionSchema: z.ZodType<string, string> = z.string()
  .regex(/^[0-9]{1,16}$/, { message: POSITION })
  .refine((v) => Number(v) <= Number.MAX_SAFE_INTEGER, { message: POSITION });
