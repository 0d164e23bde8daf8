/**
 * What the relay's resources share: the middleware built once per router by `index.ts` (the
 * trusted proxies for client addresses, the owner API's rate limit and token check, the
 * 64 KiB JSON body of the owner's small requests).
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { requireOwner, type TokenSource } from "../../auth/index.ts";
import type { Config } from "../../config/index.ts";
import { jsonBody } from "../../http/body.ts";
import { type Limiter, rateLimit } from "../../http/rate_limit.ts";
import { AddressRanges } from "../../ip/address.ts";

/** What the relay's resources share. */
export interface RelayGuards {
  /** Proxies whose forwarded client address is believed. */
  trust: AddressRanges;
  /** The owner API's rate limit. */
  ownerLimit: MiddlewareHandler;
  /** The owner token check. */
  ownerAuth: MiddlewareHandler;
  /** A JSON body of at most 64 KiB. */
  smallJson: MiddlewareHandler;
}

/**
 * The guards of one relay router.
 *
 * @example
 * ```ts
 * const guards = relayGuards(config, identity, limiters.owner);
 * app.openapi({ ...spec, middleware: [guards.ownerLimit, guards.ownerAuth] }, handler);
 * ```
 */
export function relayGuards(
  config: Config,
  identity: TokenSource,
  ownerLimiter: Limiter | null,
): RelayGuards {
  const trust = new AddressRanges(config.server.trusted_proxies);
  return {
    trust,
    ownerLimit: rateLimit(ownerLimiter, trust),
    ownerAuth: requireOwner(identity),
    smallJson: jsonBody(() => 64 * 1024, {
      code: "payload_too_large",
      message: "Request body exceeds 64 KiB",
    }),
  };
}
