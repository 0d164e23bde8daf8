/**
 * The vault's link to a remote relay (role `vault`): every {@link RelayLink} operation over the
 * relay's owner API, outbound connections only.
 *
 * @module
 */
import type { Manifest } from "../forms/manifest.ts";
import { DomainError, UpstreamFailed } from "../errors/index.ts";
import {
  type Challenge,
  fetchBlob,
  type PresignedUrl,
  type PullOptions,
  type QueueItem,
  type RelayLink,
  unlessUnpublished,
} from "./relay_link.ts";
/** A relay user as `GET /owner/me` names it. */
interface RelayUser {
  id: string;
  name: string;
}

/**
 * A remote relay over its owner API (role `vault`). Every vault user acts as the relay user
 * of `token`: a vault process serves one relay account. The vault calls the relay at
 * `apiUrl` (`--relay URL`, perhaps an internal address); manifests carry the public address
 * the relay reports in `GET /owner/me` (its `base_url`), else `apiUrl`.
 *
 * @example
 * ```ts
 * const link = new HttpRelayLink("https://relay.example.com", Deno.env.get("SEALPOST_RELAY_TOKEN")!);
 * ```
 */
export class HttpRelayLink implements RelayLink {
  readonly events = null;
  /** The token's relay user, asked once (a failure is asked again next time). */
  #user: Promise<RelayUser> | null = null;
  /**
   * This worker's name as a lease holder: a page leased to a read whose answer was lost (a
   * failed or cut-off read, a prefetched page left behind) comes back on its next read.
   */
  readonly #holder = crypto.randomUUID().replaceAll("-", "");
  readonly #apiUrl: string;
  /** Until the relay is asked ({@link refreshRelayUrl}): the URL the vault calls it at. */
  relayUrl: string;

  constructor(apiUrl: string, private token: string, private timeoutMs = 30_000) {
    this.#apiUrl = apiUrl.replace(/\/+$/, "");
    this.relayUrl = this.#apiUrl;
  }

  /**
   * `waitMs`: how long the relay may hold the request before answering (a long poll), on top
   * of the time limit; `signal` ends it early.
   */
  async #call<T>(
    method: string,
    path: string,
    body?: unknown,
    options: { waitMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(this.#apiUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.any([
          AbortSignal.timeout(this.timeoutMs + (options.waitMs ?? 0)),
          ...(options.signal ? [options.signal] : []),
        ]),
      });
    } catch (err) {
      throw new UpstreamFailed(
        "relay_unreachable",
        `Relay ${this.#apiUrl} did not answer ${method} ${path}: ${(err as Error).message}`,
      );
    }
    const text = await response.text();
    let data: { error?: { code?: string; message?: string } } | null = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (!response.ok) {
      throw new UpstreamFailed(
        data?.error?.code ?? "relay_error",
        `Relay answered ${response.status} to ${method} ${path}: ${
          data?.error?.message ?? "no details"
        }`,
        { upstreamStatus: response.status },
      );
    }
    return data as T;
  }

  /** The token's relay user: its id and its name (asked once). */
  #relayUser(): Promise<RelayUser> {
    this.#user ??= this.#me().then((me) => ({ id: me.user.id, name: me.user.name ?? "" }))
      .catch((err) => {
        this.#user = null;
        throw err;
      });
    return this.#user;
  }

  async relayUserId(): Promise<string> {
    return (await this.#relayUser()).id;
  }

  async ownerName(): Promise<string> {
    return (await this.#relayUser()).name;
  }

  /** Asks `GET /owner/me`; a relay without a `base_url` reports none: then `apiUrl` stays. */
  async refreshRelayUrl(): Promise<string> {
    const me = await this.#me();
    this.#user ??= Promise.resolve({ id: me.user.id, name: me.user.name ?? "" });
    this.relayUrl = me.relayUrl?.replace(/\/+$/, "") || this.#apiUrl;
    return this.relayUrl;
  }

  #me() {
    return this.#call<{ user: { id: string; name?: string }; relayUrl?: string | null }>(
      "GET",
      "/owner/me",
    );
  }

  async published(formId: string): Promise<Manifest | null> {
    try {
      return await this.#call<Manifest>("GET", `/forms/${encodeURIComponent(formId)}/manifest`);
    } catch (err) {
      // 404, or 410 (gone): the relay serves senders no manifest of it.
      if (err instanceof UpstreamFailed && [404, 410].includes(err.upstreamStatus ?? 0)) {
        return null;
      }
      throw err;
    }
  }

  startRegistration(_userId: string, name: string, publicKey: string): Promise<Challenge> {
    return this.#call<Challenge>("POST", "/owner/databases", { name, publicKey });
  }

  async completeRegistration(_userId: string, challengeId: string, answer: string) {
    const db = await this.#call<{ id: string }>("POST", "/owner/databases/verify", {
      challengeId,
      challenge: answer,
    });
    return db.id;
  }

  async publish(_userId: string, manifest: Manifest): Promise<void> {
    await this.#call("PUT", `/owner/forms/${encodeURIComponent(manifest.formId)}`, manifest);
  }

  async close(_userId: string, formId: string, message: string): Promise<void> {
    const path = `/owner/forms/${encodeURIComponent(formId)}/close`;
    await unlessUnpublished(this.#call("POST", path, { message }));
  }

  async reopen(_userId: string, formId: string): Promise<void> {
    const path = `/owner/forms/${encodeURIComponent(formId)}/reopen`;
    await unlessUnpublished(this.#call("POST", path));
  }

  async unpublish(_userId: string, formId: string): Promise<void> {
    await unlessUnpublished(this.#call("DELETE", `/owner/forms/${encodeURIComponent(formId)}`));
  }

  /** Leases and long polls with the queue route's `lease` and `wait` parameters. */
  async pull(
    fp: string,
    after: number,
    limit: number,
    options: PullOptions = {},
  ): Promise<QueueItem[]> {
    const { leaseSeconds, waitSeconds, signal } = options;
    let query = `after=${after}&limit=${limit}`;
    if (leaseSeconds) query += `&lease=${leaseSeconds}&holder=${this.#holder}`;
    if (waitSeconds) query += `&wait=${waitSeconds}`;
    const page = await this.#call<{ items: QueueItem[] }>(
      "GET",
      `/owner/queues/${fp}?${query}`,
      undefined,
      { waitMs: (waitSeconds ?? 0) * 1000, signal },
    );
    return page.items;
  }

  async ack(fp: string, seqs: number[]): Promise<void> {
    for (let i = 0; i < seqs.length; i += 1000) {
      await this.#call("POST", `/owner/queues/${fp}/ack`, { seqs: seqs.slice(i, i + 1000) });
    }
  }

  readonly ackPart = null;

  async claim(_relayUserId: string, hashes: string[], claimant: string): Promise<string[]> {
    const missing: string[] = [];
    for (let i = 0; i < hashes.length; i += 1000) {
      const result = await this.#call<{ missing: string[] }>("POST", "/owner/blobs/claim", {
        hashes: hashes.slice(i, i + 1000),
        claimant,
      });
      missing.push(...result.missing);
    }
    return missing;
  }

  async release(_relayUserId: string, hashes: string[], claimant: string): Promise<void> {
    for (let i = 0; i < hashes.length; i += 1000) {
      await this.#call("POST", "/owner/blobs/release", {
        hashes: hashes.slice(i, i + 1000),
        claimant,
      });
    }
  }

  async blobReadUrl(
    relayUserId: string,
    hash: string,
    lifetimeSeconds: number,
  ): Promise<PresignedUrl | null> {
    const path = `/submissions/blob/${encodeURIComponent(relayUserId)}/` +
      `${encodeURIComponent(hash)}?lifetimeSeconds=${lifetimeSeconds}`;
    try {
      return await this.#call<PresignedUrl>("GET", path);
    } catch (err) {
      if (err instanceof DomainError && err.code === "blob_not_found") return null;
      throw err;
    }
  }

  /** Over a fresh pre-signed read URL of the relay (outbound only, as all of this link). */
  async readBlob(relayUserId: string, hash: string): Promise<ReadableStream<Uint8Array> | null> {
    return await fetchBlob(await this.blobReadUrl(relayUserId, hash, 300));
  }
}
