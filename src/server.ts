/**
 * Runs the service: opens the store, builds the app, serves, and shuts down gracefully.
 *
 * @module
 */
import { stopPasswordHasher } from "./people/password.ts";
import { buildApp } from "./app.ts";
import { Blobs } from "./blobs/index.ts";
import { BufferedLines } from "./http/logger.ts";
import { type Config, publicBaseUrl } from "./config/index.ts";
import { type Edge, openEdge } from "./net/edge.ts";
import { EditTokens } from "./auth/index.ts";
import { FormDirectory } from "./relay/manifests.ts";
import { Intake } from "./relay/submissions.ts";
import { ServiceMetrics } from "./metrics/index.ts";
import { claimDataDir, type DataDirLock, readCredentials } from "./store/data_dir.ts";
import type { PersonPrincipal } from "./auth/index.ts";
import { bootstrapPeople } from "./people/bootstrap.ts";
import { openConfiguredStore, type OpenStore } from "./store/open.ts";
import {
  firstFormSource,
  relayFormSource,
  vaultFormSource,
  WebhookEngine,
} from "./webhooks/index.ts";
import { LocalRelayLink, openVault, type Vault } from "./vault/index.ts";

/** Milliseconds between sweeps of envelope storage acked envelopes no longer need. */
const ENVELOPE_SWEEP_MS = 60_000;
/** Milliseconds between two checks that published forms carry the relay's current address. */
const ADDRESS_CHECK_MS = 60_000;

/** The server could not listen (address in use, no permission); the message says where. */
export { ListenError } from "./net/edge.ts";

/** A running instance. */
export interface RunningServer {
  /** The address it listens on (with the real port when 0 was asked; https with TLS on). */
  url: string;
  /** The public base URL (config `base_url`, else the listening address). */
  baseUrl: string;
  port: number;
  /** Stops accepting, finishes in-flight requests and commits, closes the store. */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  finished: Promise<void>;
  /** The intake service (its `events` announce committed envelopes). */
  intake: Intake;
  /** The vault (roles `all` and `vault`; null for role `relay`). */
  vault: Vault | null;
  /**
   * The first person (`init`'s user, src/people/bootstrap.ts) with every scope; null without a
   * vault, or without knowing init's user (neither `firstUserId` nor a credentials file).
   */
  firstPerson: PersonPrincipal | null;
  /** Uploaded files (null for role `vault`). */
  blobs: Blobs | null;
  /** Webhook delivery. */
  webhooks: WebhookEngine;
  /** Metrics (null when `metrics.enabled` is off). */
  metrics: ServiceMetrics | null;
  /** The process's store (backend `store.backend`), for tests that write as another part would. */
  store: OpenStore;
  /** The listeners and, with TLS on, the certificate's source (src/net/edge.ts). */
  edge: Edge;
}

/**
 * Starts serving `config` (the data dir must be initialised). Takes the data dir's lock unless
 * `options.lock` is one already held; throws `DataDirError` when another process holds it.
 *
 * @example
 * ```ts
 * const server = await startServer({ ...config, server: { ...config.server, port: 0 } });
 * await fetch(`${server.url}/healthz`);
 * await server.shutdown();
 * ```
 */
export async function startServer(
  config: Config,
  options: { lock?: DataDirLock; firstUserId?: string } = {},
): Promise<RunningServer> {
  // One process per data dir: the lock is held until shutdown (src/store/data_dir.ts).
  const lock = options.lock ?? await claimDataDir(config.data_dir);
  try {
    return await start(config, lock, options.firstUserId);
  } catch (err) {
    lock.release();
    throw err;
  }
}

async function start(
  config: Config,
  lock: DataDirLock,
  firstUserId: string | undefined,
): Promise<RunningServer> {
  // Every store port (src/store/ports) on the configured backend (src/store/open.ts), opened
  // once: the relay's envelope queues, identity, manifests and blob metadata; the vault's; the
  // webhooks'; and the relay secret every process of the store shares.
  const opened = await openConfiguredStore(config);
  const store = opened.ports;
  const secret = opened.relaySecret;
  const relay = store.relay;
  const sweepEnvelopes = () =>
    relay.envelopes.sweep().catch((err) =>
      console.error(`Envelope storage sweep: ${(err as Error).message}`)
    );
  await sweepEnvelopes();
  const forms = new FormDirectory(relay);
  const intake = new Intake(relay.envelopes, forms, new EditTokens(secret), {
    maxCiphertextBytes: config.intake.max_ciphertext_bytes,
    editWindowMs: config.intake.edit_window_seconds * 1000,
  });
  const role = config.server.role;
  // Metrics (src/metrics): fed by requests, ingest and webhook attempts; gauges read at scrape.
  const metrics = config.metrics.enabled
    ? new ServiceMetrics({
      relayPorts: relay,
      vaultPorts: { quarantine: store.vault.quarantine, deliveries: store.webhooks.deliveries },
      relay: role !== "vault",
      vault: role !== "relay",
    })
    : null;
  // Blobs (src/blobs): the relay's file store; its orphan sweep runs while serving.
  let blobBaseUrl = publicBaseUrl(config);
  const blobs = role === "vault" ? null : await Blobs.open({
    meta: relay.blobMeta,
    identity: relay.identity,
    dataDir: config.data_dir,
    relaySecret: secret,
    settings: config.blobs,
    baseUrl: () => blobBaseUrl,
  });
  // Vault (src/vault): the owner side, for roles all and vault; ingest starts once listening.
  const vault = role === "relay" ? null : await openVault({
    config,
    ports: store.vault,
    env: Deno.env.toObject(),
    log: (message) => console.error(message),
    observe: metrics ? (outcome, item) => metrics.ingested(outcome, item.receivedAt) : undefined,
    onRecordsDeleted: metrics ? (reason, n) => metrics.recordsDeleted(reason, n) : undefined,
    local: role === "all"
      ? { ports: relay, forms, events: intake.events, relayUrl: publicBaseUrl(config), blobs }
      : undefined,
  });
  // People (src/people/bootstrap.ts): init's user and the accounts with vault databases become
  // persons, their owner tokens person tokens; once for all the processes of a shared store.
  // Init's user: as `init` reported it (a process that joined a shared store has no
  // credentials file), else this data dir's credentials.
  const credentials = vault ? await readCredentials(config.data_dir) : null;
  const userId = firstUserId ?? credentials?.userId;
  const firstPerson = vault && userId
    ? await opened.exclusive("people_bootstrap", () =>
      bootstrapPeople({
        vault: store.vault,
        identity: relay.identity,
        first: { userId, ownerToken: credentials?.ownerToken ?? null },
        host: new URL(publicBaseUrl(config)).hostname,
      }))
    : null;
  // Webhooks: the delivery engine; the store's listeners start once it has registered.
  // Forms: the vault's (every archived version), else those published on this relay.
  const webhookForms = vault
    ? firstFormSource(vaultFormSource(vault.forms), relayFormSource(forms))
    : relayFormSource(forms);
  const webhooks = new WebhookEngine({
    ...store.webhooks,
    forms: webhookForms,
    settings: config.webhooks,
    onAttempt: metrics ? (outcome) => metrics.webhookAttempt(outcome) : undefined,
    // Owned files: fresh read URLs from the relay, through the vault's link (in-process or
    // HTTP); encrypted files: the vault's signed link that decrypts them. A relay-only
    // process saves no records, so it resolves none.
    blobUrl: vault
      ? (ref, { formId, lifetimeSeconds }) => vault.files.url(formId, ref, lifetimeSeconds)
      : undefined,
  });
  // Events become deliveries where records are saved: a relay-only process on a shared database
  // would render bodies without the vault's forms and file links, so it leaves them to the vault.
  if (vault) await webhooks.start();
  opened.start();
  const log = new BufferedLines();
  const app = buildApp({
    identity: relay.identity,
    envelopes: relay.envelopes,
    rateLimits: store.rateLimits,
    config,
    intake,
    forms,
    log: log.write,
    webhooks,
    vault,
    blobs,
    metrics,
    storePing: opened.ping,
    baseUrl: () => blobBaseUrl,
  });
  let edge: Edge;
  try {
    // src/net: HTTP/1.1 on Deno.listen, with timeouts and connection caps (not Deno.serve);
    // HTTPS and the plain-HTTP redirect listener with [server.tls] (src/net/edge.ts).
    edge = await openEdge(config, (request, info) => app.fetch(request, info));
  } catch (err) {
    await blobs?.close();
    await webhooks.stop();
    await opened.close();
    throw err;
  }
  const server = edge.main;
  // Metrics: audit entries that could not be recorded (src/audit/log.ts).
  if (vault) metrics?.auditFailures(() => vault.audit.failures);
  // Metrics: days left on the certificate served (with TLS on).
  if (edge.secure) metrics?.tlsCertificate(() => edge.certificate()?.notAfter ?? null);
  const addr = server.addr;
  // Vault: with port 0 the relay URL is known only now.
  if (vault?.link instanceof LocalRelayLink) vault.link.relayUrl = publicBaseUrl(config, addr.port);
  if (vault) vault.files.baseUrl = publicBaseUrl(config, addr.port);
  vault?.ingest.start();
  // Retention (src/vault/retention.ts) and file releases, every retention.sweep_interval_seconds.
  vault?.startMaintenance(config.retention.sweep_interval_seconds * 1000);
  // Published forms that carry another address are signed again and republished with this
  // one (src/vault/address_sync.ts); a relay that moves or answers late is checked again.
  await vault?.address.run();
  vault?.address.start(ADDRESS_CHECK_MS);
  // Blobs: URLs made outside a request (webhook bodies) point at the real port.
  blobBaseUrl = publicBaseUrl(config, addr.port);
  blobs?.startSweeper();
  let sweeping: Promise<unknown> | null = null;
  const sweepTimer = setInterval(() => {
    sweeping ??= sweepEnvelopes().finally(() => sweeping = null);
  }, ENVELOPE_SWEEP_MS);
  let closing: Promise<void> | null = null;
  const shutdown = () =>
    closing ??= (async () => {
      await edge.shutdown();
      // The console's password hashing worker (src/people/password.ts) would keep the process.
      stopPasswordHasher();
      await vault?.ingest.stop();
      await vault?.stopMaintenance();
      await vault?.address.stop();
      await blobs?.close();
      await webhooks.stop();
      clearInterval(sweepTimer);
      await sweeping;
      // Audit entries of the last requests, recorded unawaited, are stored before it closes.
      await vault?.audit.idle();
      await opened.close();
      log.flush();
      lock.release();
    })();
  return {
    url: `${edge.secure ? "https" : "http"}://${
      addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname
    }:${addr.port}`,
    baseUrl: publicBaseUrl(config, addr.port),
    port: addr.port,
    shutdown,
    intake,
    vault,
    firstPerson,
    blobs,
    webhooks,
    metrics,
    store: opened,
    edge,
    finished: server.finished.then(() => closing ?? undefined),
  };
}
