/**
 * The relay's HTTP surface: intake, manifests, identity registry and owner queues (the routes'
 * OpenAPI definitions are in src/relay/route_specs.ts).
 *
 * @module
 */
import { AddressRanges } from "../ip/address.ts";
import { newRouter } from "../http/openapi.ts";
import type { OpenAPIHono, z } from "@hono/zod-openapi";
import { type Config, publicBaseUrl } from "../config/index.ts";
import type { ManifestSchema } from "../forms/manifest.ts";
import { jsonBody } from "../http/body.ts";
import {
  assertOwns,
  type AuthEnv,
  editTokenOf,
  requireAdmin,
  requireOwner,
} from "../auth/index.ts";
import { Gone, NotFound, Unauthenticated } from "../errors/index.ts";
import { closedNotice } from "../forms/closure.ts";
import { type Limiter, rateLimit } from "../http/rate_limit.ts";
import type { EnvelopePort } from "../store/ports/envelopes.ts";
import type { IdentityPort, RelayDatabase } from "../store/ports/identity.ts";
import { completeRegistration, createUser, startRegistration } from "./identity.ts";
import { originGuard } from "./cors.ts";
import type { FormDirectory } from "./manifests.ts";
import { ackQueue, listQueue } from "./queue.ts";
import {
  closeForm,
  getManifest,
  getMe,
  getQueue,
  postAck,
  postDatabase,
  postSubmission,
  postUser,
  putManifest,
  putSubmission,
  reopenForm,
  unpublishForm,
  verifyDatabase,
} from "./route_specs.ts";
import type { Intake } from "./submissions.ts";

/** What the relay routes need. */
export interface RelayDeps {
  identity: IdentityPort;
  envelopes: EnvelopePort;
  config: Config;
  intake: Intake;
  forms: FormDirectory;
  limiters: {
    submissions: Limiter | null;
    owner: Limiter | null;
  };
}

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

/** Mounts the relay's routes on a new router. */
export function relayRoutes(deps: RelayDeps): OpenAPIHono<AuthEnv> {
  const { config, intake, forms, identity, envelopes } = deps;
  const app = newRouter<AuthEnv>();
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
  const ownerAuth = requireOwner(identity);
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
    const token = editTokenOf(c);
    const { submissionId } = c.req.valid("param");
    return c.json(await intake.amend(submissionId, token, c.req.valid("json")), 200);
  });

  app.openapi(getManifest, async (c) => {
    // Revalidated on every use: a form closes, reopens and is unpublished, and a browser may
    // otherwise keep a 410 or 404 heuristically.
    c.header("cache-control", "no-cache");
    const form = await forms.get(c.req.valid("param").formId);
    if (!form) throw new NotFound("form_not_found", "This form is not published");
    if (form.closed) throw new Gone("form_closed", closedNotice(form.closed.message));
    return c.json(form.manifest as z.infer<typeof ManifestSchema>, 200);
  });

  const manifestBody = jsonBody(() => config.intake.max_manifest_bytes, {
    code: "manifest_too_large",
    message: `Manifest exceeds ${config.intake.max_manifest_bytes} bytes`,
  });
  app.openapi({ ...putManifest, middleware: [ownerLimit, ownerAuth, manifestBody] }, async (c) => {
    const { formId } = c.req.valid("param");
    const { row } = await forms.publish(c.var.owner.userId, formId, c.req.valid("json"));
    return c.json(
      { formId: row.formId, schemaVersion: row.schemaVersion, publishedAt: row.publishedAt },
      200,
    );
  });

  const closure = (row: { formId: string; closed?: { message: string; closedAt: string } }) => ({
    formId: row.formId,
    closed: row.closed ?? null,
  });
  app.openapi({ ...closeForm, middleware: [ownerLimit, ownerAuth, smallJson] }, async (c) => {
    const { formId } = c.req.valid("param");
    const row = await forms.close(c.var.owner.userId, formId, c.req.valid("json").message);
    return c.json(closure(row), 200);
  });

  app.openapi({ ...reopenForm, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const row = await forms.reopen(c.var.owner.userId, c.req.valid("param").formId);
    return c.json(closure(row), 200);
  });

  app.openapi({ ...unpublishForm, middleware: [ownerLimit, ownerAuth] }, async (c) => {
    const { formId } = c.req.valid("param");
    if (!(await forms.unpublish(c.var.owner.userId, formId))) {
      throw new NotFound("form_not_found", `You have no published form "${formId}"`, "formId");
    }
    return c.body(null, 204);
  });

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

  return app;
}
