/**
 * The vault's view of the relay: register database keys, publish manifests (and close, reopen
 * and unpublish forms), read and ack queues, claim uploaded files and get read URLs of them.
 * One interface, two implementations: in-process in `local_relay_link.ts` (role `all`,
 * straight over the relay's modules and ports), and over HTTP in `http_relay_link.ts` (role
 * `vault`, over the owner API, outbound only). Both answer a form the relay does not publish
 * and a file it does not store alike, with the two helpers at the end of this module.
 *
 * @module
 */
import type { PresignedUrl } from "../blobs/index.ts";
import type { Manifest } from "../forms/manifest.ts";
import { DomainError, UpstreamFailed } from "../errors/index.ts";
import type { AckEntry, QueueItem } from "../relay/queue.ts";
import type { WritePart } from "../store/ports/write_part.ts";

export type { AckEntry, PresignedUrl, QueueItem };

/** How {@link RelayLink.pull} reads a queue. */
export interface PullOptions {
  /**
   * Lease what is answered for this many seconds (1-300): other leasing pulls, of this or any
   * other vault worker, skip it until it is acked or the lease ends.
   */
  leaseSeconds?: number;
  /** When nothing is there, wait up to this many seconds (0-30) for envelopes to arrive. */
  waitSeconds?: number;
  /** Ends a waiting pull early (over HTTP it then throws; in-process it answers what it has). */
  signal?: AbortSignal;
}

/** A registration challenge sealed to the key being registered. */
export interface Challenge {
  challengeId: string;
  sealedChallenge: string;
}

/** What the vault needs from a relay. */
export interface RelayLink {
  /** Base URL senders submit to (the manifests' `relayUrl`), as last learned. */
  readonly relayUrl: string;
  /**
   * Learns the relay's public address anew (a remote relay is asked) and answers it: what
   * {@link relayUrl} is from then on.
   */
  refreshRelayUrl(): Promise<string>;
  /** The manifest the relay serves for `formId`, or null when it serves none. */
  published(formId: string): Promise<Manifest | null>;
  /** Announces `queued` events (detail: fingerprint) when the relay is in-process. */
  readonly events: EventTarget | null;
  /** The relay user id that vault user `userId` acts as. */
  relayUserId(userId: string): Promise<string>;
  /** The display name of the relay user `userId` acts as (`user add --name`); "" if none. */
  ownerName(userId: string): Promise<string>;
  /** Starts registering a recipient key for `userId`. */
  startRegistration(userId: string, name: string, publicKey: string): Promise<Challenge>;
  /** Completes a registration; returns the relay's database id. */
  completeRegistration(userId: string, challengeId: string, answer: string): Promise<string>;
  /** Publishes a signed manifest. */
  publish(userId: string, manifest: Manifest): Promise<void>;
  /**
   * Closes published form `formId`: the relay answers its submissions, amendments, manifest
   * and page with 410 `form_closed` and `message`. A form the relay does not publish is left
   * as it is (nothing to close).
   */
  close(userId: string, formId: string, message: string): Promise<void>;
  /** Reopens published form `formId` (nothing to do when the relay does not publish it). */
  reopen(userId: string, formId: string): Promise<void>;
  /** Unpublishes form `formId`: the relay then answers as for an unknown form (idempotent). */
  unpublish(userId: string, formId: string): Promise<void>;
  /** A page of the queue of recipient `fp`. */
  pull(fp: string, after: number, limit: number, options?: PullOptions): Promise<QueueItem[]>;
  /** Acknowledges processed envelopes by queue position (`seq`). */
  ack(fp: string, seqs: number[]): Promise<void>;
  /**
   * Set when the relay shares the vault's store (role `all`): the ack of `item` as a part of
   * the vault's own atomic write, so a record and its ack commit together. Null over HTTP,
   * where the vault calls {@link ack} after its commit.
   */
  readonly ackPart: ((fp: string, item: AckEntry) => WritePart) | null;
  /**
   * Claims uploaded files (by hash) of relay user `relayUserId` for `claimant` (the record
   * `{formId}/{recordId}`) so the orphan sweep keeps them; answers the hashes the relay does
   * not store for that user.
   */
  claim(relayUserId: string, hashes: string[], claimant: string): Promise<string[]>;
  /** Releases `claimant`'s claims: files nobody claims any more go to the orphan sweep. */
  release(relayUserId: string, hashes: string[], claimant: string): Promise<void>;
  /**
   * A fresh pre-signed GET URL, valid `lifetimeSeconds`, of the uploaded file `hash` of relay
   * user `relayUserId`; null when the relay does not store it.
   */
  blobReadUrl(
    relayUserId: string,
    hash: string,
    lifetimeSeconds: number,
  ): Promise<PresignedUrl | null>;
  /**
   * Streams the stored bytes of the uploaded file `hash` of relay user `relayUserId`, or null
   * when the relay does not store it: in-process from the blob store (role `all`), else over
   * a pre-signed read URL.
   *
   * @throws {UpstreamFailed} `relay_unavailable` when the relay does not answer.
   */
  readBlob(relayUserId: string, hash: string): Promise<ReadableStream<Uint8Array> | null>;
}

/** Waits for a change of a published form; a form the relay does not publish is no error. */
export async function unlessUnpublished(change: Promise<unknown>): Promise<void> {
  try {
    await change;
  } catch (err) {
    if (!(err instanceof DomainError && err.code === "form_not_found")) throw err;
  }
}

/** The bytes at a pre-signed read URL; null for none or a 404. */
export async function fetchBlob(
  read: PresignedUrl | null,
): Promise<ReadableStream<Uint8Array> | null> {
  if (!read) return null;
  let response: Response;
  try {
    response = await fetch(read.url);
  } catch (err) {
    throw new UpstreamFailed(
      "relay_unavailable",
      `The relay did not answer: ${(err as Error).message}`,
    );
  }
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new UpstreamFailed("relay_unavailable", `The relay answered ${response.status}`);
  }
  return response.body;
}
