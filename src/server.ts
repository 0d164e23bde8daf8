/**
 * Runs the service: opens the store, builds the app, serves, and shuts down gracefully.
 *
 * @module
 */
import { buildApp } from "./app.ts";
import { BufferedLines } from "./http/logger.ts";
import { type Config, publicBaseUrl } from "./config/index.ts";
import { readRelaySecret } from "./init/data_dir.ts";
import { EditTokens } from "./relay/edit_tokens.ts";
import { FormDirectory } from "./relay/manifests.ts";
import { Intake, sweepStaging } from "./relay/submissions.ts";
import { GroupCommitter } from "./store/group_commit.ts";
import { openStore } from "./store/kv.ts";

/** A running instance. */
export interface RunningServer {
  /** The address it listens on (with the real port when 0 was asked). */
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
}

/**
 * Starts serving `config` (the data dir must be initialised).
 *
 * @example
 * ```ts
 * const server = await startServer({ ...config, server: { ...config.server, port: 0 } });
 * await fetch(`${server.url}/healthz`);
 * await server.shutdown();
 * ```
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const secret = await readRelaySecret(config.data_dir);
  const kv = await openStore(config.data_dir);
  await sweepStaging(kv);
  const committer = new GroupCommitter(kv);
  const forms = new FormDirectory(kv);
  const intake = new Intake(kv, committer, forms, new EditTokens(secret), {
    maxCiphertextBytes: config.intake.max_ciphertext_bytes,
    editWindowMs: config.intake.edit_window_seconds * 1000,
  });
  const log = new BufferedLines();
  const app = buildApp({ kv, config, intake, forms, log: log.write });
  const { promise: listening, resolve: onListen } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: config.server.host,
    port: config.server.port,
    onListen: (addr) => onListen(addr as Deno.NetAddr),
  }, (request, info) => app.fetch(request, info));
  const addr = await listening;
  let closing: Promise<void> | null = null;
  const shutdown = () =>
    closing ??= (async () => {
      await server.shutdown();
      await committer.idle();
      log.flush();
      kv.close();
    })();
  return {
    url: `http://${
      addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname
    }:${addr.port}`,
    baseUrl: publicBaseUrl(config, addr.port),
    port: addr.port,
    shutdown,
    intake,
    finished: server.finished.then(() => closing ?? undefined),
  };
}
