/**
 * The configuration schema: every key, its type and its default, in one place.
 *
 * `config.example.toml` documents the same keys; a test keeps the two in step.
 *
 * @module
 */
import { z } from "zod";

const RateLimit = z.strictObject({
  /** Sustained requests per minute and client address. */
  per_minute: z.number().int().min(1),
  /** Requests a client may make at once before the rate applies. */
  burst: z.number().int().min(1),
});

/** Zod schema of the whole configuration, defaults included. */
export const ConfigSchema = z.strictObject({
  /** Folder holding the KV store, secrets and blobs. */
  data_dir: z.string().min(1).default("./data"),
  /** Public base URL used in manifests and pre-signed URLs; empty = http://host:port. */
  base_url: z.union([z.literal(""), z.url({ protocol: /^https?$/ })]).default(""),
  server: z.strictObject({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(0).max(65535).default(8080),
    /** Trust the left-most X-Forwarded-For address (only behind your own reverse proxy). */
    trust_proxy: z.boolean().default(false),
    /** Write one JSON line per request to stdout. */
    request_log: z.boolean().default(true),
  }).prefault({}),
  intake: z.strictObject({
    /** Largest accepted ciphertext, in decoded bytes; larger gets 413. */
    max_ciphertext_bytes: z.number().int().min(48).max(64 * 1024 * 1024).default(8 * 1024 * 1024),
    /** How long an edit token can amend its submission, in seconds (default 30 days). */
    edit_window_seconds: z.number().int().min(0).default(30 * 24 * 3600),
    /** Largest manifest a user may publish, in bytes. */
    max_manifest_bytes: z.number().int().min(1024).max(60 * 1024).default(60 * 1024),
  }).prefault({}),
  rate_limits: z.strictObject({
    /** Master switch for per-address rate limits. */
    enabled: z.boolean().default(true),
    submissions: RateLimit.default({ per_minute: 600, burst: 100 }),
    upload_slots: RateLimit.default({ per_minute: 120, burst: 30 }),
    uploads: RateLimit.default({ per_minute: 120, burst: 30 }),
    owner: RateLimit.default({ per_minute: 1200, burst: 200 }),
  }).prefault({}),
});

/** The validated configuration. */
export type Config = z.infer<typeof ConfigSchema>;
