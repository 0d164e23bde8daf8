/**
 * The relay's intake over HTTP: `POST /submissions` (a sealed envelope in) and
 * `PUT /submissions/{submissionId}` (its amendment with the edit token); their OpenAPI
 * definitions, schemas and handlers. The intake itself is `../submissions.ts`.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { type AuthEnv, editTokenOf } from "../../auth/index.ts";
import { type Config, publicBaseUrl } from "../../config/index.ts";
import {
  IntakeEnvelopeSchema,
  SubmissionEnvelopeSchema,
  SubmissionIdSchema,
} from "../../forms/payload.ts";
import { jsonBody } from "../../http/body.ts";
import { errors, jsonContent as json, requiredJson } from "../../http/openapi.ts";
import { type Limiter, rateLimit } from "../../http/rate_limit.ts";
import type { FormDirectory } from "../manifests.ts";
import type { Intake } from "../submissions.ts";
import type { RelayGuards } from "./_guards.ts";
import { originGuard } from "./cors.ts";

/** What POST /submissions answers. */
const ReceiptSchema = z.object({
  submissionId: z.string(),
  editToken: z.string().openapi({ description: "Bearer token for PUT /submissions/{id}" }),
}).openapi("SubmissionReceipt");

/** What PUT /submissions/{id} answers. */
const AmendReceiptSchema = ReceiptSchema.extend({
  version: z.number().int().openapi({ description: "Version of the submission now queued" }),
}).openapi("AmendReceipt");

/** `POST /submissions`: submit a sealed envelope. */
const postSubmission = createRoute({
  method: "post",
  path: "/submissions",
  tags: ["intake"],
  summary: "Submit a sealed envelope",
  description: "Anonymous for public forms. Idempotent on submissionId: the same id and bytes " +
    "again answer the same receipt; the same id with other bytes is a 409.",
  request: { body: requiredJson(IntakeEnvelopeSchema, "The envelope") },
  responses: {
    200: json(ReceiptSchema, "Stored durably and queued for the recipient"),
    ...errors({
      400: "Required envelope fields missing or malformed",
      403: "origin_not_allowed: the form does not take submissions from this web origin",
      404: "Form not published, or recipientPubkey is not its key",
      409: "submissionId already used with other content",
      410: "form_closed: the owner closed the form; the message is the owner's (our addition: an " +
        "open form answers exactly as the specification says)",
      413: "Ciphertext too large",
      429: "Rate limited; see Retry-After",
    }),
  },
});

/** `PUT /submissions/{submissionId}`: amend a submission with its edit token. */
const putSubmission = createRoute({
  method: "put",
  path: "/submissions/{submissionId}",
  tags: ["intake"],
  summary: "Amend a submission with its edit token",
  security: [{ editToken: [] }],
  request: {
    params: z.object({ submissionId: SubmissionIdSchema }),
    body: requiredJson(SubmissionEnvelopeSchema, "The new envelope (payload mode Update)"),
  },
  responses: {
    200: json(AmendReceiptSchema, "The amendment is queued as a new version"),
    ...errors({
      400: "Malformed envelope",
      401: "No edit token",
      403: "Wrong edit token, or origin_not_allowed (the form's allowed origins)",
      404: "Unknown submission or form",
      410: "edit_window_closed: the edit window is over; form_closed: the owner closed the form " +
        "(the message is the owner's)",
      413: "Ciphertext too large",
      429: "Rate limited",
    }),
  },
});

/** What the submission routes need. */
export interface SubmissionRouteDeps {
  config: Config;
  intake: Intake;
  forms: FormDirectory;
  /** The sender's rate limit (null: none). */
  limiter: Limiter | null;
}

/**
 * Mounts the submission routes on `app`: rate limited per sender, the body capped at the
 * base64 of the largest ciphertext, and the form's allowed origins checked (`cors.ts`).
 *
 * @example
 * ```ts
 * mountSubmissions(app, { config, intake, forms, limiter: limiters.submissions }, guards);
 * ```
 */
export function mountSubmissions(
  app: OpenAPIHono<AuthEnv>,
  deps: SubmissionRouteDeps,
  guards: RelayGuards,
): void {
  const { config, intake, forms } = deps;
  const envelopeCap = Math.ceil(config.intake.max_ciphertext_bytes / 3) * 4 + 16 * 1024;
  const tooLarge = {
    code: "ciphertext_too_large",
    message: `Ciphertext exceeds the ${config.intake.max_ciphertext_bytes}-byte limit`,
  };
  const submissionLimits = [
    rateLimit(deps.limiter, guards.trust),
    jsonBody(() => envelopeCap, tooLarge),
    originGuard(forms, publicBaseUrl(config)), // a form's allowed origins (cors.ts)
  ];

  app.openapi({ ...postSubmission, middleware: submissionLimits }, async (c) => {
    const receipt = await intake.submit(c.req.valid("json"));
    return c.json({ submissionId: receipt.submissionId, editToken: receipt.editToken }, 200);
  });

  app.openapi({ ...putSubmission, middleware: submissionLimits }, async (c) => {
    const token = editTokenOf(c);
    const { submissionId } = c.req.valid("param");
    return c.json(await intake.amend(submissionId, token, c.req.valid("json")), 200);
  });
}
