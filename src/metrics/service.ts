/**
 * The service's metric families (all named `sealpost_*`), what feeds the counters, and the
 * collectors that read the store at scrape time. See docs/operations.md for every series.
 *
 * @module
 */
import type { RelayPorts } from "../store/ports/bundle.ts";
import type { QuarantinePort } from "../store/ports/quarantine.ts";
import type { WebhookDeliveries } from "../store/ports/webhooks.ts";
import { VERSION } from "../version.ts";
import { Registry } from "./registry.ts";

/** Counts stop here (per queue, per family), so a scrape does bounded work. */
export const COUNT_CAP = 10_000;

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

/** What an intake request (submit or amend) came to. */
export type IntakeKind = "submit" | "amend";

/** Where the collectors read (the store's ports), and which halves this process runs. */
export interface MetricsSources {
  /** The relay's stores: queues (by recipient) and blob usage. */
  relayPorts: Pick<RelayPorts, "envelopes" | "identity" | "blobMeta">;
  /** The vault's stores: quarantine and webhook deliveries, counted. */
  vaultPorts: {
    quarantine: Pick<QuarantinePort, "count">;
    deliveries: Pick<WebhookDeliveries, "countByState">;
  };
  /** The process holds the relay's queues and blobs (roles `all` and `relay`). */
  relay: boolean;
  /** The process holds the vault's quarantine and webhook deliveries (roles `all`, `vault`). */
  vault: boolean;
}

/**
 * The metrics of one running instance.
 *
 * @example
 * ```ts
 * const metrics = new ServiceMetrics({ relayPorts, vaultPorts, relay: true, vault: true });
 * metrics.request("GET", "/healthz", 200, 0.001);
 * const text = await metrics.render();
 * ```
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests = this.registry.counter(
    "sealpost_http_requests_total",
    "HTTP requests served, by method, route template and status",
  );
  readonly #durations = this.registry.histogram(
    "sealpost_http_request_duration_seconds",
    "Time to the response head, by route template",
    SECONDS_BUCKETS,
  );
  readonly #accepted = this.registry.counter(
    "sealpost_intake_accepted_total",
    "Envelopes accepted by the intake (kind: submit or amend)",
  );
  readonly #rejected = this.registry.counter(
    "sealpost_intake_rejected_total",
    "Intake requests refused, by kind and error code",
  );
  readonly #depth = this.registry.gauge(
    "sealpost_queue_depth",
    `Envelopes waiting in a recipient's queue (counted up to ${COUNT_CAP})`,
  );
  readonly #oldest = this.registry.gauge(
    "sealpost_queue_oldest_age_seconds",
    "Age of the oldest envelope waiting in a recipient's queue (0 when empty)",
  );
  readonly #lag = this.registry.histogram(
    "sealpost_ingest_lag_seconds",
    "Time from an envelope's arrival at the relay to the vault settling it",
    LAG_BUCKETS,
  );
  readonly #ingested = this.registry.counter(
    "sealpost_ingest_envelopes_total",
    "Envelopes the vault settled, by outcome (record, quarantined, duplicate)",
  );
  readonly #saved = this.registry.counter(
    "sealpost_records_saved_total",
    "Records inserted or updated from submissions",
  );
  readonly #deleted = this.registry.counter(
    "sealpost_records_deleted_total",
    "Records deleted, by reason (owner or retention)",
  );
  readonly #quarantine = this.registry.gauge(
    "sealpost_quarantine_envelopes",
    `Envelopes in quarantine, waiting for the owner (counted up to ${COUNT_CAP})`,
  );
  readonly #attempts = this.registry.counter(
    "sealpost_webhook_attempts_total",
    "Webhook delivery attempts, by outcome (delivered, transient, permanent)",
  );
  readonly #backlog = this.registry.gauge(
    "sealpost_webhook_retry_backlog",
    `Webhook deliveries pending an attempt (counted up to ${COUNT_CAP})`,
  );
  readonly #failed = this.registry.gauge(
    "sealpost_webhook_deliveries_failed",
    `Webhook deliveries failed for good, until retried (counted up to ${COUNT_CAP})`,
  );
  readonly #auditFailures = this.registry.counter(
    "sealpost_audit_failures_total",
    "Audit log entries that could not be recorded (the action went ahead; see the log)",
  );
  readonly #blobBytes = this.registry.gauge("sealpost_blob_bytes", "Bytes of stored blobs");
  readonly #blobCount = this.registry.gauge("sealpost_blobs", "Stored blobs");
  readonly #memory = this.registry.gauge(
    "sealpost_process_memory_bytes",
    "Process memory (Deno.memoryUsage), by kind: rss, heap_total, heap_used, external",
  );
  readonly #info = this.registry.gauge("sealpost_build_info", "The running version (always 1)");
  readonly #certificateDays = this.registry.gauge(
    "sealpost_tls_certificate_days_left",
    "Days until the TLS certificate served expires (with [server.tls]; absent before the first)",
  );

  constructor(private readonly sources: MetricsSources) {
    this.#info.set({ version: VERSION }, 1);
    this.registry.collect(() => this.#collectMemory());
    if (sources.relay) this.registry.collect(() => this.#collectRelay());
    if (sources.vault) this.registry.collect(() => this.#collectVault());
  }

  /** Counts one served request. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.#requests.inc({ method, route, status: String(status) });
    this.#durations.observe({ route }, seconds);
  }

  /** Counts one intake request: accepted (`code` null) or refused with error `code`. */
  intake(kind: IntakeKind, code: string | null): void {
    if (code === null) this.#accepted.inc({ kind });
    else this.#rejected.inc({ kind, reason: code });
  }

  /** Counts one envelope the vault settled, received at `receivedAt` (ISO time). */
  ingested(outcome: "record" | "quarantined" | "duplicate", receivedAt: string): void {
    this.#ingested.inc({ outcome });
    if (outcome === "record") this.#saved.inc();
    const lag = (Date.now() - Date.parse(receivedAt)) / 1000;
    if (Number.isFinite(lag)) this.#lag.observe({}, Math.max(0, lag));
  }

  /** Counts `count` deleted records. */
  recordsDeleted(reason: "owner" | "retention", count = 1): void {
    this.#deleted.inc({ reason }, count);
  }

  /** Counts one webhook attempt. */
  webhookAttempt(outcome: "delivered" | "transient" | "permanent"): void {
    this.#attempts.inc({ outcome });
  }

  /** Reports the audit log's failed records, read at each scrape from `failures` (a count). */
  auditFailures(failures: () => number): void {
    this.registry.collect(() => {
      // A sample from the first scrape on (0 until a record fails).
      this.#auditFailures.inc({}, Math.max(0, failures() - this.#auditFailures.get()));
    });
  }

  /**
   * Reports the days left on the TLS certificate served, read at each scrape from `notAfter`
   * (null: none yet).
   */
  tlsCertificate(notAfter: () => Date | null): void {
    this.registry.collect(() => {
      const end = notAfter();
      this.#certificateDays.clear();
      if (end) this.#certificateDays.set({}, (end.getTime() - Date.now()) / 86_400_000);
    });
  }

  /** Every family in the text exposition format, gauges read now. */
  render(): Promise<string> {
    return this.registry.render();
  }

  #collectMemory(): void {
    const usage = Deno.memoryUsage();
    this.#memory.set({ kind: "rss" }, usage.rss);
    this.#memory.set({ kind: "heap_total" }, usage.heapTotal);
    this.#memory.set({ kind: "heap_used" }, usage.heapUsed);
    this.#memory.set({ kind: "external" }, usage.external);
  }

  async #collectRelay(): Promise<void> {
    const { envelopes, identity, blobMeta } = this.sources.relayPorts;
    this.#depth.clear();
    this.#oldest.clear();
    const now = Date.now();
    for (const fingerprint of await identity.listRecipients()) {
      const labels = { fingerprint };
      const stats = await envelopes.queueStats(fingerprint, COUNT_CAP);
      this.#depth.set(labels, stats.depth);
      const oldest = stats.oldestReceivedAt === null ? now : Date.parse(stats.oldestReceivedAt);
      this.#oldest.set(labels, Math.max(0, (now - oldest) / 1000));
    }
    const usage = await blobMeta.totalUsage();
    this.#blobBytes.set({}, usage.bytes);
    this.#blobCount.set({}, usage.count);
  }

  async #collectVault(): Promise<void> {
    const { quarantine, deliveries: store } = this.sources.vaultPorts;
    const [quarantined, deliveries] = await Promise.all([
      quarantine.count(COUNT_CAP),
      store.countByState(COUNT_CAP),
    ]);
    this.#quarantine.set({}, quarantined);
    this.#backlog.set({}, deliveries.pending);
    this.#failed.set({}, deliveries.failed);
  }
}
