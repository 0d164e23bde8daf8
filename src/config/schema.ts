/**
 * The configuration schema: every key, its type and its default, in one place.
 *
 * `config.example.toml` documents the same keys; a test keeps the two in step.
 *
 * @module
 */
import { z } from "zod";
import { isAddressOrCidr } from "../ip/address.ts";

const RateLimit = z.strictObject({
  /** Sustained requests per minute and client address. */
  per_minute: z.number().int().min(1),
  /** Requests a client may make at once before the rate applies. */
  burst: z.number().int().min(1),
});

/**
 * The longest a pre-signed blob read URL may live, in seconds (30 days): the bound of
 * `webhooks.blob_url_lifetime_seconds`, so a vault can always ask its relay for a URL that
 * long (`lifetimeSeconds` of `GET /submissions/blob/...`).
 */
export const MAX_BLOB_URL_LIFETIME_SECONDS = 30 * 24 * 3600;

/**
 * The most requests in flight per webhook configuration: the bound of
 * `webhooks.concurrency_per_webhook` and of a configuration's own `concurrency`.
 */
export const MAX_WEBHOOK_CONCURRENCY = 64;

/** An S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * `[blobs.s3]`: the S3-compatible object store of `blobs.backend = "s3"` (docs/uploads.md).
 * The keys are read from environment variables or files named here, never from the file
 * itself, so the configuration can be shown without them.
 */
const BlobS3Settings = z.strictObject({
  /** Base URL of the store (path-style requests: `{endpoint}/{bucket}/{key}`). */
  endpoint: z.union([z.literal(""), z.url({ protocol: /^https?$/ })]).default(""),
  /** Region of the SigV4 signature. */
  region: z.string().min(1).max(64).default("us-east-1"),
  /** The bucket (created beforehand, with the CORS rules of docs/uploads.md). */
  bucket: z.union([z.literal(""), z.string().regex(BUCKET_NAME, "Expected an S3 bucket name")])
    .default(""),
  /** Environment variable holding the access key id (used when no file is named). */
  access_key_id_env: z.string().min(1).default("AWS_ACCESS_KEY_ID"),
  /** File holding the access key id; empty: read `access_key_id_env`. */
  access_key_id_file: z.string().default(""),
  /** Environment variable holding the secret access key (used when no file is named). */
  secret_access_key_env: z.string().min(1).default("AWS_SECRET_ACCESS_KEY"),
  /** File holding the secret access key; empty: read `secret_access_key_env`. */
  secret_access_key_file: z.string().default(""),
});

/** Let's Encrypt's production ACME directory, the default of `server.tls.acme.directory_url`. */
export const LETS_ENCRYPT_DIRECTORY = "https://acme-v02.api.letsencrypt.org/directory";

/** A DNS name a public certificate can be issued for (no wildcard: HTTP-01 cannot prove one). */
const DOMAIN_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * `[server.tls]`: HTTPS on the main listener (src/net/tls_listener.ts), from certificate files
 * or from an ACME CA (src/net/acme.ts). docs/security.md "TLS and certificates".
 */
const TlsSettings = z.strictObject({
  /** Certificate chain (PEM, leaf first); re-read on SIGHUP and when it changes. */
  cert_file: z.string().default(""),
  /** Its private key (PEM). */
  key_file: z.string().default(""),
  acme: z.strictObject({
    /** Obtain and renew the certificate from an ACME CA (HTTP-01 on `server.http_port`). */
    enabled: z.boolean().default(false),
    /** The names the certificate covers; the first is the default public host. */
    domains: z.array(z.string().toLowerCase().regex(DOMAIN_NAME, "Expected a DNS name"))
      .max(100).default([]),
    /** Contact address given to the CA (optional). */
    email: z.union([z.literal(""), z.email()]).default(""),
    /** The CA's directory. */
    directory_url: z.url({ protocol: /^https?$/ }).default(LETS_ENCRYPT_DIRECTORY),
    /** PEM root of a private CA, trusted for its directory; empty: the system's roots. */
    ca_file: z.string().default(""),
  }).prefault({}),
}).refine((t) => (t.cert_file === "") === (t.key_file === ""), {
  message: "server.tls.cert_file and server.tls.key_file go together",
  path: ["key_file"],
}).refine((t) => !(t.acme.enabled && t.cert_file !== ""), {
  message: "server.tls.acme.enabled and server.tls.cert_file exclude each other",
  path: ["acme", "enabled"],
}).refine((t) => !t.acme.enabled || t.acme.domains.length > 0, {
  message: "server.tls.acme.enabled needs server.tls.acme.domains",
  path: ["acme", "domains"],
});

/** Zod schema of the whole configuration, defaults included. */
export const ConfigSchema = z.strictObject({
  /** Folder holding the KV store, secrets and blobs. */
  data_dir: z.string().min(1).default("./data"),
  /** Public base URL used in manifests and pre-signed URLs; empty = the listening address. */
  base_url: z.union([z.literal(""), z.url({ protocol: /^https?$/ })]).default(""),
  server: z.strictObject({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(0).max(65535).default(8080),
    /**
     * Reverse proxies (addresses or CIDRs, IPv4 or IPv6) whose X-Forwarded-For is believed:
     * the client is the right-most hop that is not one of them.
     */
    trusted_proxies: z.array(z.string().refine(isAddressOrCidr, "Expected an IP address or CIDR"))
      .max(1000).default([]),
    /** Write one JSON line per request to stdout. */
    request_log: z.boolean().default(true),
    /** Which half to run: `all` (relay and vault in one process), `relay` or `vault`. */
    role: z.enum(["all", "relay", "vault"]).default("all"),
    // Connection limits (src/net): cut slow and idle clients, cap open connections.
    /** Seconds from connecting (or a kept-alive request's first byte) to a complete head. */
    header_timeout_seconds: z.number().gt(0).max(300).default(10),
    /** Seconds a kept-alive connection may wait for its next request. */
    keepalive_timeout_seconds: z.number().gt(0).max(300).default(5),
    /** Seconds one read of a request body or one write of a response may stall. */
    body_idle_timeout_seconds: z.number().gt(0).max(300).default(30),
    /** Seconds for a whole API request (large transfers follow the throughput rule instead). */
    request_timeout_seconds: z.number().gt(0).max(3600).default(30),
    /** Least bytes per second of a large transfer (blobs, queue pages), per 10 s window. */
    min_transfer_bytes_per_second: z.number().int().min(0).default(1024),
    /** Open connections at once; 0 = as many as the open-file limit allows. */
    max_connections: z.number().int().min(0).default(0),
    /** Open connections at once from one address (trusted proxies are exempt). */
    max_connections_per_address: z.number().int().min(1).default(128),
    /** Plain-HTTP port with TLS on: ACME HTTP-01 answers, a 308 to https otherwise; 0 = off. */
    http_port: z.number().int().min(0).max(65535).default(0),
    tls: TlsSettings.prefault({}),
  }).prefault({}).refine((s) => s.http_port === 0 || tlsEnabled(s.tls), {
    message: "server.http_port needs TLS (server.tls.cert_file or server.tls.acme.enabled)",
    path: ["http_port"],
  }).refine((s) => !s.tls.acme.enabled || s.http_port !== 0, {
    message: "server.tls.acme.enabled needs server.http_port (80: the CA validates over HTTP)",
    path: ["http_port"],
  }).refine((s) => s.http_port === 0 || s.http_port !== s.port, {
    message: "server.http_port must differ from server.port",
    path: ["http_port"],
  }),
  intake: z.strictObject({
    /** Largest accepted ciphertext, in decoded bytes; larger gets 413. */
    max_ciphertext_bytes: z.number().int().min(48).max(64 * 1024 * 1024).default(8 * 1024 * 1024),
    /** How long an edit token can amend its submission, in seconds (default 30 days). */
    edit_window_seconds: z.number().int().min(0).default(30 * 24 * 3600),
    /** Largest manifest a user may publish, in bytes. */
    max_manifest_bytes: z.number().int().min(1024).max(60 * 1024).default(60 * 1024),
  }).prefault({}),
  // blobs (src/blobs): uploaded files, their pre-signed URLs, quota and orphan sweep.
  blobs: z.strictObject({
    /** Lifetime of a pre-signed upload (PUT) URL, in seconds. */
    upload_url_lifetime_seconds: z.number().int().min(10).max(7 * 24 * 3600).default(900),
    /** Lifetime of a pre-signed read (GET) URL from GET /submissions/blob/..., in seconds. */
    read_url_lifetime_seconds: z.number().int().min(10).max(7 * 24 * 3600).default(900),
    /** Bytes of blobs one user may store (10 GiB); a new upload past it is `quota_exceeded`. */
    quota_bytes_per_user: z.number().int().min(1).default(10 * 1024 * 1024 * 1024),
    /** How long an unclaimed upload is kept before the sweep deletes it, in seconds (7 days). */
    orphan_grace_seconds: z.number().int().min(0).default(7 * 24 * 3600),
    /** Seconds between two orphan sweeps. */
    sweep_interval_seconds: z.number().int().min(1).max(24 * 3600).default(3600),
    /** Where the bytes live: `fs` (under data_dir) or `s3` (`[blobs.s3]`). */
    backend: z.enum(["fs", "s3"]).default("fs"),
    s3: BlobS3Settings.prefault({}),
  }).prefault({}).refine(
    (b) => b.backend !== "s3" || (b.s3.endpoint !== "" && b.s3.bucket !== ""),
    { message: 'blobs.backend = "s3" needs blobs.s3.endpoint and blobs.s3.bucket', path: ["s3"] },
  ),
  rate_limits: z.strictObject({
    /** Master switch for per-address rate limits. */
    enabled: z.boolean().default(true),
    submissions: RateLimit.default({ per_minute: 600, burst: 100 }),
    upload_slots: RateLimit.default({ per_minute: 120, burst: 30 }),
    uploads: RateLimit.default({ per_minute: 120, burst: 30 }),
    owner: RateLimit.default({ per_minute: 1200, burst: 200 }),
    /** Anonymous manifest reads (GET /forms/{formId}/manifest). */
    manifests: RateLimit.default({ per_minute: 1200, burst: 200 }),
    /** Pre-signed blob reads (GET and HEAD /blobs/...). */
    blob_reads: RateLimit.default({ per_minute: 600, burst: 100 }),
    /** The vault's owner API (/vault/*). */
    vault: RateLimit.default({ per_minute: 1200, burst: 200 }),
    /** Console sign-in attempts per client address (src/people/sign_in_limits.ts). */
    sign_in_address: RateLimit.default({ per_minute: 30, burst: 30 }),
    /** Console sign-in attempts per account (the email asked for, known or not). */
    sign_in_account: RateLimit.default({ per_minute: 3, burst: 10 }),
    /** Addresses tracked per family; past it the least recently seen is forgotten. */
    max_tracked_addresses: z.number().int().min(100).max(10_000_000).default(100_000),
  }).prefault({}),
  webhooks: z.strictObject({
    /**
     * Wait before each attempt of a delivery, in seconds: the first entry before the first
     * attempt, each next one after the previous attempt failed transiently. The delivery
     * fails when the schedule runs out.
     */
    retry_schedule_seconds: z.array(z.number().min(0).max(30 * 24 * 3600)).min(1).max(100)
      .default([0, 5, 30, 120, 600, 1800, 3600, 10800, 21600, 43200, 86400]),
    /** Random extra wait added to each scheduled wait, as a fraction of it. */
    jitter_ratio: z.number().min(0).max(1).default(0.1),
    /** Longest wait a Retry-After header can ask for, in seconds. */
    retry_after_max_seconds: z.number().min(0).max(30 * 24 * 3600).default(3600),
    /** Time limit of one request (connect, send, response head and snippet), in seconds. */
    request_timeout_seconds: z.number().gt(0).max(300).default(15),
    /** Requests in flight at once per webhook configuration. */
    concurrency_per_webhook: z.number().int().min(1).max(MAX_WEBHOOK_CONCURRENCY).default(8),
    /** Lifetime of the blob URLs put in bodies for image and attachment fields, in seconds. */
    blob_url_lifetime_seconds: z.number().int().min(60).max(MAX_BLOB_URL_LIFETIME_SECONDS)
      .default(604800),
    /** Refuse loopback, private, link-local and metadata addresses (after DNS resolution). */
    block_private_networks: z.boolean().default(false),
  }).prefault({}),
  // vault (src/vault): ingest and the relay a `vault`-role process pulls from.
  vault: z.strictObject({
    /** Base URL of the relay a `vault`-role process pulls from (flag `--relay`). */
    relay_url: z.union([z.literal(""), z.url({ protocol: /^https?$/ })]).default(""),
    /** Envelopes read from the queue per page. */
    ingest_batch_size: z.number().int().min(1).max(500).default(100),
    /** Seconds between queue polls when nothing announces new envelopes (role vault). */
    poll_interval_seconds: z.number().gt(0).max(3600).default(2),
  }).prefault({}),
  // metrics (src/metrics): GET /metrics in the Prometheus text format.
  metrics: z.strictObject({
    /** Serve GET /metrics. */
    enabled: z.boolean().default(true),
    /** Bearer token GET /metrics requires; empty: open to whoever reaches the listener. */
    token: z.string().default(""),
  }).prefault({}),
  // retention (src/vault/retention.ts): the sweep deleting records past a form's retention.
  retention: z.strictObject({
    /** Seconds between two retention sweeps. */
    sweep_interval_seconds: z.number().int().min(1).max(24 * 3600).default(3600),
  }).prefault({}),
  // audit (src/audit): the instance's hash-chained log of who did what.
  audit: z.strictObject({
    /** Entries older than this many days are pruned (a signed checkpoint keeps the chain). */
    retention_days: z.number().int().min(0).max(100 * 365).default(0),
  }).prefault({}),
  // console (src/console): the owner's web console, served by the vault.
  console: z.strictObject({
    /** A console session ends after this many seconds without a request. */
    session_idle_seconds: z.number().int().min(60).max(30 * 24 * 3600).default(1800),
    /** A console session ends this many seconds after sign-in, however active. */
    session_max_seconds: z.number().int().min(60).max(90 * 24 * 3600).default(43200),
    /**
     * Everyone needs a second factor (TOTP or a passkey): a person without one is sent to the
     * Security page after sign-in and can do nothing else until they add one.
     */
    require_second_factor: z.boolean().default(false),
  }).prefault({}),
  // store (src/store/open.ts): Deno KV in the data dir (one process), or PostgreSQL shared by
  // several relay and vault processes (docs/scale.md).
  store: z.strictObject({
    /** `kv` (Deno KV in data_dir) or `postgres` (`postgres_url`). */
    backend: z.enum(["kv", "postgres"]).default("kv"),
    /**
     * `postgres://user:password@host:port/database` (also `SEALPOST_POSTGRES_URL`); never
     * logged. Query parameters are connection settings (e.g. `?search_path=sealpost`).
     */
    postgres_url: z.union([z.literal(""), z.url({ protocol: /^postgres(ql)?$/ })]).default(""),
    /** Connections this process keeps open to PostgreSQL (two at least: one may hold a lock). */
    postgres_pool_size: z.number().int().min(2).max(1000).default(10),
    /**
     * File holding the relay secret (base64 of 32 bytes) every process of one database shares;
     * empty: `<data_dir>/relay.secret` (kv), or made once and kept in the database (postgres).
     */
    relay_secret_file: z.string().default(""),
  }).prefault({}).refine(
    (s) => s.backend !== "postgres" || s.postgres_url !== "",
    {
      message: 'store.backend = "postgres" needs store.postgres_url (or SEALPOST_POSTGRES_URL)',
      path: ["postgres_url"],
    },
  ),
});

/** Whether `[server.tls]` turns HTTPS on (certificate files or ACME). */
export function tlsEnabled(tls: { cert_file: string; acme: { enabled: boolean } }): boolean {
  return tls.cert_file !== "" || tls.acme.enabled;
}

/** The validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
