/**
 * The Hono application: middleware, every feature's routes, the OpenAPI document, and the
 * one error handler.
 *
 * @module
 */
import { adoptOwnerToken } from "./people/bootstrap.ts";
import { peopleServices } from "./people/index.ts";
import { peopleRoutes } from "./people/api/index.ts";
import type { Mailer } from "./people/mailer.ts";
import { tokenRoutes } from "./people/api/tokens.ts";
import { PersonTokens } from "./people/tokens.ts";
import { OpenAPIHono } from "@hono/zod-openapi";
import { largeTransfer } from "./http/transfer_regime.ts";
import { instanceRoutes } from "./admin/api/instance.ts";
import { auditRoutes } from "./audit/api/audit.ts";
import { blobRoutes, type Blobs } from "./blobs/index.ts";
import { consoleRoutes, Sessions } from "./console/index.ts";
import { type Config, publicBaseUrl, tlsEnabled } from "./config/index.ts";
import { errorResponse, notFoundResponse, STORAGE_RETRY_AFTER_SECONDS } from "./http/errors.ts";
import { hsts } from "./http/hsts.ts";
import { requestLog } from "./http/logger.ts";
import { metricsHandler, requestMetrics, type ServiceMetrics } from "./metrics/index.ts";
import { AddressRanges } from "./ip/address.ts";
import { type Limiter, rateLimit } from "./http/rate_limit.ts";
import { type RelayDeps, relayRoutes, senderCors } from "./relay/api/index.ts";
import type { FormDirectory } from "./relay/manifests.ts";
import type { Intake } from "./relay/submissions.ts";
import { storageFailure, StorageHealth } from "./http/storage_health.ts";
import type { EnvelopePort } from "./store/ports/envelopes.ts";
import type { IdentityPort } from "./store/ports/identity.ts";
import type { RateLimitPort } from "./store/ports/rate_limits.ts";
import { VERSION } from "./version.ts";
import { webRoutes } from "./web/routes.ts";
import { type Vault, vaultFileRoutes, vaultRoutes } from "./vault/index.ts";
import { type WebhookEngine, webhookRoutes } from "./webhooks/index.ts";

/** Everything the application needs from the process. */
export interface AppDeps {
  /** The relay's users, tokens and databases (src/store/ports/identity.ts). */
  identity: IdentityPort;
  /** The relay's envelope queues (src/store/ports/envelopes.ts). */
  envelopes: EnvelopePort;
  /** Rate-limit buckets (src/store/ports/rate_limits.ts): shared by every relay of a store. */
  rateLimits: RateLimitPort;
  config: Config;
  intake: Intake;
  forms: FormDirectory;
  /** Where request log lines go (when `server.request_log` is on). */
  log: (line: string) => void;
  /** Webhook delivery (its owner API is mounted here). */
  webhooks: WebhookEngine;
  /** The vault (roles `all` and `vault`), whose owner API is mounted under /vault. */
  vault: Vault | null;
  /** Uploaded files (src/blobs); null for role `vault`, which is no relay. */
  blobs: Blobs | null;
  /** Metrics (src/metrics); null when `metrics.enabled` is off. */
  metrics?: ServiceMetrics | null;
  /** The store's own check for `/healthz` (src/store/open.ts `ping`). */
  storePing?: () => Promise<void>;
  /** The public base URL once listening (with port 0, the real port); default from config. */
  baseUrl?: () => string;
  /** Where invitations are mailed (src/people/mailer.ts); none by default. */
  mailer?: Mailer;
}

/** Builds the application. */
export function buildApp(deps: AppDeps): OpenAPIHono {
  const { config } = deps;
  // A family's buckets under the rule `rule` of [rate_limits]; a family is named for its rule
  // unless two families share one rule.
  type RuleName = Exclude<keyof Config["rate_limits"], "enabled" | "max_tracked_addresses">;
  const limiter = (rule: RuleName, family: string = rule): Limiter | null =>
    config.rate_limits.enabled
      ? { port: deps.rateLimits, family, rule: config.rate_limits[rule] }
      : null;
  const proxies = new AddressRanges(config.server.trusted_proxies);
  const relayDeps: RelayDeps = {
    ...deps,
    limiters: {
      submissions: limiter("submissions"),
      owner: limiter("owner"),
    },
  };
  const app = new OpenAPIHono();
  // With [server.tls], every https response says to keep to https (src/http/hsts.ts).
  if (tlsEnabled(config.server.tls)) app.use(hsts());
  if (config.server.request_log) app.use(requestLog(deps.log));
  // Metrics (src/metrics): every request counted by route template; GET /metrics.
  if (deps.metrics) {
    app.use(requestMetrics(deps.metrics));
    app.get("/metrics", metricsHandler(deps.metrics, config.metrics.token));
  }
  // Storage health (src/http/storage_health.ts): degraded after a failed write until a probe
  // write succeeds again.
  const storage = new StorageHealth(config.data_dir, Date.now, deps.storePing);
  app.get("/healthz", async (c) => {
    const state = await storage.check();
    return state.ok
      ? c.json({ status: "ok", version: VERSION })
      : c.json({ status: "degraded", version: VERSION, reason: state.reason }, 503, {
        "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS),
      });
  });
  // Browser senders (src/relay/api/cors.ts): CORS on the anonymous sender routes only.
  if (config.server.role !== "vault") app.use(senderCors(deps.forms, publicBaseUrl(config)));
  // Rate limits of the route families whose routers set none: manifest reads, pre-signed
  // blob reads and the vault's owner API (before its authentication).
  // Public reads share one family: manifests, the form page, its assets, the embed script and
  // the OpenAPI document.
  const publicReads = rateLimit(limiter("manifests"), proxies);
  for (const path of ["/forms/*", "/f/*", "/assets/*", "/embed.js", "/openapi.json"]) {
    app.use(path, publicReads);
  }
  // Large transfers follow the throughput rule instead of the request deadline, by the route
  // served (src/http/transfer_regime.ts): uploads and downloads, queue pages, record files.
  app.use("/blobs/*", largeTransfer());
  app.use("/owner/queues/*", largeTransfer(["GET"]));
  app.use("/vault-files/*", largeTransfer(["GET", "HEAD"]));
  const blobReads = rateLimit(limiter("blob_reads"), proxies);
  app.use(
    "/blobs/*",
    (c, next) => c.req.method === "GET" || c.req.method === "HEAD" ? blobReads(c, next) : next(),
  );
  app.use("/vault/*", rateLimit(limiter("vault"), proxies));
  // The instance's own view of itself, for `sealpost doctor` (src/admin), in every role.
  app.route(
    "/",
    instanceRoutes({
      config,
      tokens: deps.identity,
      baseUrl: deps.baseUrl ?? (() => publicBaseUrl(config)),
      limit: rateLimit(relayDeps.limiters.owner, proxies),
    }),
  );
  // A vault-role process is no relay: it pulls from one (src/vault).
  if (config.server.role !== "vault") app.route("/", relayRoutes(relayDeps));
  // The hosted form page, its assets and the embed script (src/web).
  if (config.server.role !== "vault") {
    const blobStoreUrl = config.blobs.backend === "s3" ? config.blobs.s3.endpoint : undefined;
    app.route("/", webRoutes({ forms: deps.forms, blobStoreUrl }));
  }
  // Blobs (src/blobs): upload slots, pre-signed PUT and GET, owner read URLs and claims.
  if (deps.blobs) {
    app.route(
      "/",
      blobRoutes({
        identity: deps.identity,
        config,
        blobs: deps.blobs,
        limiters: {
          uploadSlots: limiter("upload_slots"),
          uploads: limiter("uploads"),
          owner: relayDeps.limiters.owner,
        },
      }),
    );
  }
  const personTokens = deps.vault && {
    people: deps.vault.store.people,
    personTokens: deps.vault.store.personTokens,
    adopt: (token: string) =>
      adoptOwnerToken({ vault: deps.vault!.store, identity: deps.identity }, token),
    identity: deps.identity,
  };
  // People's API tokens (src/people/api/tokens.ts): ahead of the vault's routes, whose
  // `/vault/*` authentication would otherwise run for them a second time.
  const apiTokens = deps.vault && new PersonTokens({
    tokens: deps.vault.store.personTokens,
    people: deps.vault.store.people,
    facts: deps.vault.store.vaultDatabases,
    relay: deps.identity,
    access: deps.vault.access,
    audit: deps.vault.audit,
  });
  if (apiTokens) app.route("/", tokenRoutes(apiTokens, personTokens!));
  if (deps.vault) app.route("/", vaultRoutes(deps.vault, personTokens!));
  // The audit log (src/audit): its pages for instance admins, its signed head for anyone.
  if (deps.vault) {
    const { access, audit, store } = deps.vault;
    app.route("/", auditRoutes({ tokens: personTokens!, access, log: audit, port: store.audit }));
  }
  // People and each database's members (src/people): the vault's, beside its routes.
  const peopleSide = deps.vault && peopleServices(deps.vault, apiTokens!, deps.mailer);
  const baseUrl = deps.baseUrl ?? (() => publicBaseUrl(config));
  if (peopleSide) {
    app.route("/", peopleRoutes({ services: peopleSide, tokens: personTokens!, baseUrl }));
  }
  // Encrypted record files, decrypted by the vault at links it signs (src/vault/files.ts).
  if (deps.vault) {
    app.use("/vault-files/*", rateLimit(limiter("blob_reads", "vault_files"), proxies));
    app.route("/", vaultFileRoutes(deps.vault, personTokens!));
  }
  // Webhooks' owner API (src/webhooks): outbound configuration lives with the vault only.
  if (deps.vault) {
    app.route(
      "/",
      webhookRoutes({
        tokens: personTokens!,
        access: deps.vault.access,
        audit: deps.vault.audit,
        engine: deps.webhooks,
        rateLimit: rateLimit(relayDeps.limiters.owner, proxies),
      }),
    );
  }
  // The owner console (src/console): web pages of the vault only; a relay serves none.
  if (deps.vault) {
    const people = deps.vault.store.people;
    const sessions = new Sessions(deps.vault.store.sessions, (id) => people.get(id), {
      idleSeconds: config.console.session_idle_seconds,
      maxSeconds: config.console.session_max_seconds,
    });
    // Its own buckets with the vault API's rule: sign-in guesses count against an address.
    app.use("/console/*", rateLimit(limiter("vault", "console"), proxies));
    app.route(
      "/",
      consoleRoutes({
        ...deps,
        vault: deps.vault,
        sessions,
        people: peopleSide!,
        baseUrl,
        apiTokens: apiTokens!,
      }),
    );
  }
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Sealpost",
      version: VERSION,
      description: "End-to-end encrypted form backend. Errors: " +
        '`{"error": {"code", "message", "field"?}}`.',
    },
  });
  app.onError((err, c) => {
    const failure = storageFailure(err);
    if (failure) storage.failed(failure);
    return errorResponse(err, c);
  });
  app.notFound(notFoundResponse);
  return app;
}
