/**
 * Published form manifests: the owner publishes, anyone reads.
 *
 * The relay checks ownership (the recipient key must be one of the publisher's databases)
 * and stores the manifest as published; its signature is the vault's business. The owner may
 * close a published form (intake then answers 410 `form_closed` with the owner's message),
 * reopen it, and unpublish it (it then reads as never published).
 *
 * @module
 */
import type { Manifest } from "../forms/manifest.ts";
import { Conflict, Forbidden, Invalid, NotFound, TooLarge } from "../errors/index.ts";
import { normalizeClosedMessage } from "../forms/closure.ts";
import type { IdentityPort } from "../store/ports/identity.ts";
import {
  type ManifestPort,
  ManifestTooLargeError,
  type PublishedForm,
} from "../store/ports/manifests.ts";
import { decodeRecipientKey } from "./identity.ts";
import { fingerprint } from "../crypto/keys.ts";

/** The stores publishing reads and writes. */
export interface ManifestStores {
  manifests: ManifestPort;
  identity: Pick<IdentityPort, "recipientOwner">;
}

/**
 * Stores `manifest` as the published form `formId` of `userId`.
 *
 * @throws {Invalid} when the manifest names another form or user, {@linkcode Forbidden} when
 * the key is not the user's, {@linkcode Conflict} when the form belongs to someone else or the
 * version goes backwards.
 */
export async function publishManifest(
  stores: ManifestStores,
  userId: string,
  formId: string,
  manifest: Manifest,
): Promise<{ row: PublishedForm; created: boolean }> {
  if (manifest.formId !== formId) {
    throw new Invalid(
      "invalid_request",
      `Manifest formId "${manifest.formId}" differs from the path's "${formId}"`,
      "formId",
    );
  }
  if (manifest.recipient.userId !== userId) {
    throw new Invalid(
      "invalid_request",
      `recipient.userId "${manifest.recipient.userId}" is not the publishing user`,
      "recipient.userId",
    );
  }
  const publicKey = decodeRecipientKey(manifest.recipient.publicKey, "recipient.publicKey");
  const fp = fingerprint(publicKey);
  const owner = await stores.identity.recipientOwner(fp);
  if (owner?.userId !== userId) {
    throw new Forbidden(
      "recipient_not_owned",
      "recipient.publicKey is not a registered database of this user",
      "recipient.publicKey",
    );
  }
  const current = await stores.manifests.get(formId);
  if (current && current.userId !== userId) {
    throw new Conflict("form_id_taken", `Form id "${formId}" belongs to another user`);
  }
  if (current && manifest.schemaVersion < current.schemaVersion) {
    throw new Conflict(
      "stale_schema_version",
      `schemaVersion ${manifest.schemaVersion} is older than the published ${current.schemaVersion}`,
      "schemaVersion",
    );
  }
  const row: PublishedForm = {
    formId,
    userId,
    fingerprint: fp,
    publicKey: manifest.recipient.publicKey,
    schemaVersion: manifest.schemaVersion,
    manifest: manifest as Record<string, unknown>,
    publishedAt: new Date().toISOString(),
    // A new version of a closed form stays closed until the owner reopens it.
    ...(current?.closed ? { closed: current.closed } : {}),
  };
  let written: boolean;
  try {
    written = await stores.manifests.put(row, current);
  } catch (err) {
    if (!(err instanceof ManifestTooLargeError)) throw err;
    throw new TooLarge("manifest_too_large", err.message);
  }
  if (!written) {
    throw new Conflict("conflict", `Form "${formId}" changed meanwhile; publish again`);
  }
  return { row, created: current === null };
}

/**
 * Published forms, read through a bounded in-memory cache. This process's own changes
 * (publish, close, reopen, unpublish) refresh its entry at once; an entry is read again from
 * the store once it is `maxAgeMs` old, so the changes other relays sharing a PostgreSQL store
 * make reach this one within that time (one store read per form and period: nothing to intake).
 */
export class FormDirectory {
  #cache = new Map<string, { row: PublishedForm; at: number }>();

  constructor(
    private stores: ManifestStores,
    private maxEntries = 10_000,
    private maxAgeMs = 5_000,
  ) {}

  /** The published form `formId`, or null. Unknown ids are not cached. */
  async get(formId: string): Promise<PublishedForm | null> {
    const cached = this.#cache.get(formId);
    if (cached && performance.now() - cached.at < this.maxAgeMs) return cached.row;
    const row = await this.stores.manifests.get(formId);
    if (row) this.#remember(row);
    else this.#cache.delete(formId);
    return row;
  }

  /** Publishes through {@link publishManifest} and refreshes the cache. */
  async publish(userId: string, formId: string, manifest: Manifest) {
    this.#cache.delete(formId);
    const result = await publishManifest(this.stores, userId, formId, manifest);
    this.#remember(result.row);
    return result;
  }

  /**
   * Closes the published form `formId` of `userId` with `message` (plain text; closing a closed
   * form again replaces its message). Another user's form answers like an unknown one.
   *
   * @throws {NotFound} `form_not_found` when `userId` has no published form `formId`.
   */
  async close(userId: string, formId: string, message: string): Promise<PublishedForm> {
    const closed = { message: normalizeClosedMessage(message), closedAt: new Date().toISOString() };
    return await this.#change(userId, formId, (row) => ({ ...row, closed }));
  }

  /** Reopens the published form `formId` of `userId` (a no-op when it is open). */
  async reopen(userId: string, formId: string): Promise<PublishedForm> {
    return await this.#change(userId, formId, ({ closed: _, ...row }) => row);
  }

  /**
   * Unpublishes the form `formId` of `userId`: its manifest, page and intake answer as for an
   * unknown form. Queued envelopes stay queued for the owner. False when it was not published.
   */
  async unpublish(userId: string, formId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      this.#cache.delete(formId);
      const current = await this.stores.manifests.get(formId);
      if (!current || current.userId !== userId) return false;
      if (await this.stores.manifests.remove(current)) return true;
    }
    throw new Conflict("conflict", `Form "${formId}" kept changing; try again`);
  }

  async #change(userId: string, formId: string, next: (row: PublishedForm) => PublishedForm) {
    for (let attempt = 0; attempt < 3; attempt++) {
      this.#cache.delete(formId);
      const current = await this.stores.manifests.get(formId);
      if (!current || current.userId !== userId) {
        throw new NotFound("form_not_found", `You have no published form "${formId}"`, "formId");
      }
      const row = next(current);
      if (await this.stores.manifests.put(row, current)) {
        this.#remember(row);
        return row;
      }
    }
    throw new Conflict("conflict", `Form "${formId}" kept changing; try again`);
  }

  #remember(row: PublishedForm) {
    this.#cache.delete(row.formId);
    if (this.#cache.size >= this.maxEntries) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(row.formId, { row, at: performance.now() });
  }
}
