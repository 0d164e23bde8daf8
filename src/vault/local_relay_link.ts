/**
 * The relay in the same process (role `all`): the vault's {@link RelayLink} straight over the
 * relay's modules, its identity and envelope ports and its blob store; no HTTP hop.
 *
 * @module
 */
import type { PresignedUrl } from "../blobs/index.ts";
import type { Manifest } from "../forms/manifest.ts";
import { NotFound } from "../errors/index.ts";
import { completeRegistration, startRegistration } from "../relay/identity.ts";
import type { FormDirectory } from "../relay/manifests.ts";
import { ackQueue, listQueue, type QueueItem } from "../relay/queue.ts";
import type { EnvelopePort } from "../store/ports/envelopes.ts";
import type { IdentityPort } from "../store/ports/identity.ts";
import { fetchBlob, type PullOptions, type RelayLink, unlessUnpublished } from "./relay_link.ts";

/** The relay's stores an in-process link works on. */
export interface LocalRelayPorts {
  identity: IdentityPort;
  envelopes: EnvelopePort;
}

/** The relay's uploaded files, in-process (src/blobs `Blobs`): claims and read URLs. */
export interface LocalBlobs {
  claim(userId: string, hashes: string[], claimant: string): Promise<{ missing: string[] }>;
  release(userId: string, hashes: string[], claimant: string): Promise<unknown>;
  readUrl(
    key: { userId: string; hash: string },
    options: { lifetimeSeconds: number },
  ): Promise<PresignedUrl | null>;
  /** Whether the relay serves the bytes itself (fs), or the object store does (S3). */
  readonly servesBytes: boolean;
  /** Streams a stored blob (when {@link servesBytes}); a `NotFound` when its bytes are gone. */
  read(key: { userId: string; hash: string }): Promise<ReadableStream<Uint8Array>>;
}

/**
 * The relay in the same process (role `all`): vault users are relay users.
 *
 * @example
 * ```ts
 * const link = new LocalRelayLink(ports, forms, server.baseUrl, intake.events);
 * ```
 */
export class LocalRelayLink implements RelayLink {
  /** This process's name as a lease holder (processes sharing a store split its queues). */
  readonly #holder = crypto.randomUUID();

  constructor(
    private relay: LocalRelayPorts,
    private forms: FormDirectory,
    /** Set once the server listens, when the port was not known before. */
    public relayUrl: string,
    readonly events: EventTarget | null,
    /** Null when the process stores no files (then no file is ever known). */
    private blobs: LocalBlobs | null = null,
  ) {}

  relayUserId(userId: string): Promise<string> {
    return Promise.resolve(userId);
  }

  /** This process serves the relay: its address is the one set when it started listening. */
  refreshRelayUrl(): Promise<string> {
    return Promise.resolve(this.relayUrl);
  }

  async published(formId: string): Promise<Manifest | null> {
    return (await this.forms.get(formId))?.manifest as Manifest | undefined ?? null;
  }

  async ownerName(userId: string): Promise<string> {
    return (await this.relay.identity.getUser(userId))?.name ?? "";
  }

  async startRegistration(userId: string, name: string, publicKey: string) {
    const { challengeId, sealedChallenge } = await startRegistration(
      this.relay.identity,
      userId,
      name,
      publicKey,
    );
    return { challengeId, sealedChallenge };
  }

  async completeRegistration(userId: string, challengeId: string, answer: string) {
    return (await completeRegistration(this.relay.identity, userId, challengeId, answer)).id;
  }

  async publish(userId: string, manifest: Manifest): Promise<void> {
    await this.forms.publish(userId, manifest.formId, manifest);
  }

  async close(userId: string, formId: string, message: string): Promise<void> {
    await unlessUnpublished(this.forms.close(userId, formId, message));
  }

  async reopen(userId: string, formId: string): Promise<void> {
    await unlessUnpublished(this.forms.reopen(userId, formId));
  }

  async unpublish(userId: string, formId: string): Promise<void> {
    await this.forms.unpublish(userId, formId);
  }

  async pull(
    fp: string,
    after: number,
    limit: number,
    options: PullOptions = {},
  ): Promise<QueueItem[]> {
    const { leaseSeconds, waitSeconds, signal } = options;
    const lease = leaseSeconds ? { holder: this.#holder, seconds: leaseSeconds } : undefined;
    const page = await listQueue(this.relay.envelopes, fp, after, limit, {
      lease,
      waitSeconds,
      signal,
    });
    return page.items;
  }

  async ack(fp: string, seqs: number[]): Promise<void> {
    await ackQueue(this.relay.envelopes, fp, seqs);
  }

  readonly ackPart: RelayLink["ackPart"] = (fp, item) => this.relay.envelopes.ackPart(fp, item);

  async claim(relayUserId: string, hashes: string[], claimant: string): Promise<string[]> {
    if (!this.blobs) return hashes;
    return (await this.blobs.claim(relayUserId, hashes, claimant)).missing;
  }

  async release(relayUserId: string, hashes: string[], claimant: string): Promise<void> {
    await this.blobs?.release(relayUserId, hashes, claimant);
  }

  async blobReadUrl(relayUserId: string, hash: string, lifetimeSeconds: number) {
    return await this.blobs?.readUrl({ userId: relayUserId, hash }, { lifetimeSeconds }) ?? null;
  }

  /**
   * Straight from the blob store on disk: no URL, no HTTP hop. An object store (S3) serves its
   * bytes itself: then over a pre-signed read URL.
   */
  async readBlob(relayUserId: string, hash: string): Promise<ReadableStream<Uint8Array> | null> {
    if (!this.blobs) return null;
    if (!this.blobs.servesBytes) {
      return await fetchBlob(await this.blobReadUrl(relayUserId, hash, 300));
    }
    try {
      return await this.blobs.read({ userId: relayUserId, hash });
    } catch (err) {
      if (err instanceof NotFound) return null;
      throw err;
    }
  }
}
