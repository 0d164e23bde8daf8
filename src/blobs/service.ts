/**
 * The blob service: upload slots, pre-signed PUT and GET URLs, quota, claims and the orphan
 * sweep, over a store for the bytes and the blob metadata port for the rest. With the filesystem
 * store ({@linkcode BlobStore}) the URLs are Sealpost's own and the bytes pass through it; with a
 * direct store ({@linkcode DirectBlobStore}, S3) the URLs are the store's, and an upload is
 * recorded when a claim or a read first refers to it (`direct.ts`).
 *
 * @module
 */
import { join } from "node:path";
import type { Config } from "../config/index.ts";
import { MAX_FILE_BYTES } from "../forms/file_ref.ts";
import {
  type DomainError,
  Forbidden,
  Invalid,
  NotFound,
  QuotaExceeded,
  TooLarge,
} from "../errors/index.ts";
import { type BlobMeta, type BlobMetaPort, QuotaExceededError } from "../store/ports/blob_meta.ts";
import type { IdentityPort } from "../store/ports/identity.ts";
import { KeyedLock } from "./_lock.ts";
import { inParallel, isDirect, knownBlob, sweepUnrecorded } from "./direct.ts";
import { FsBlobStore } from "./fs_store.ts";
import { type BlobKey, blobKeyString, isBlobUserId } from "./key.ts";
import { PeriodicTask, sweepOrphans, type SweepResult } from "./orphans.ts";
import { type SignedQuery, type SignedRequest, UrlSigner, verifySignedQuery } from "./signing.ts";
import { contentTypeMatches, servedAs } from "./mime.ts";
import { readS3Credentials, S3BlobStore } from "./s3_store.ts";
import { type BlobStore, BlobWriteError, type ByteRange, type DirectBlobStore } from "./store.ts";

/** The settings of the `[blobs]` configuration section. */
export type BlobSettings = Config["blobs"];

/** What {@linkcode Blobs} needs. */
export interface BlobsOptions {
  /** Blob metadata, usage and claims. */
  meta: BlobMetaPort;
  /** Who may receive uploads (a registered user). */
  identity: Pick<IdentityPort, "getUser">;
  /** Where the bytes live: passing through Sealpost (fs), or reached directly (S3). */
  store: BlobStore | DirectBlobStore;
  signer: UrlSigner;
  settings: BlobSettings;
  /** The public base URL, for URLs made outside a request (for example webhook bodies). */
  baseUrl: () => string;
  /** The clock, epoch milliseconds. */
  now?: () => number;
}

/** The body of `POST /submissions/upload-slot`. */
export interface SlotRequest {
  recipientUserId: string;
  hash: string;
  mime?: string | null;
  sizeBytes?: number | null;
}

/** A pre-signed URL and when it stops working. */
export interface PresignedUrl {
  url: string;
  expiresAtUtc: string;
}

/** What `POST /submissions/upload-slot` answers. */
export interface UploadSlot extends PresignedUrl {
  /** The storage key `{recipientUserId}/{hash}`. */
  key: string;
}

/** The headers of a PUT that matter, and its body. */
export interface UploadRequest {
  contentType: string | null;
  contentLength: string | null;
  body: ReadableStream<Uint8Array> | null;
}

/** What a PUT stored: all but `created` comes from the request (no existence oracle). */
export interface UploadReceipt {
  key: string;
  hash: string;
  sizeBytes: number;
  /** The mime the URL signed (null for none). */
  mime: string | null;
  /** False when the same bytes were already stored (the PUT is idempotent); not sent out. */
  created: boolean;
}

/** Where the filesystem store keeps blobs inside a data dir. */
function blobsDir(dataDir: string): string {
  return join(dataDir, "blobs");
}

/** The route path of a blob's pre-signed URLs (its segments are URL-safe by their syntax). */
function blobPath(key: BlobKey): string {
  return `/blobs/${key.userId}/${key.hash}`;
}

function quotaError(err: QuotaExceededError): QuotaExceeded {
  return new QuotaExceeded("quota_exceeded", err.message);
}

function writeError(err: BlobWriteError): DomainError {
  switch (err.reason) {
    case "too_large":
      return new TooLarge("file_too_large", err.message);
    case "empty":
      return new Invalid("empty_body", "The body is empty; a file has 1 byte or more");
    case "hash_mismatch":
      return new Invalid("hash_mismatch", err.message);
    case "unreadable":
      return new Invalid("body_unreadable", err.message);
  }
}

/**
 * Uploaded files: slots, pre-signed URLs, storage, quota, claims and the orphan sweep.
 *
 * @example
 * ```ts
 * const blobs = await Blobs.open({ meta, identity, dataDir: "./data", relaySecret, settings, baseUrl });
 * const slot = await blobs.uploadSlot({ recipientUserId, hash, mime: "image/png" }, baseUrl());
 * ```
 */
export class Blobs {
  readonly #lock = new KeyedLock();
  readonly #sweeper: PeriodicTask;
  readonly #now: () => number;

  constructor(private readonly options: BlobsOptions) {
    this.#now = options.now ?? Date.now;
    this.#sweeper = new PeriodicTask(
      () => this.sweep(),
      options.settings.sweep_interval_seconds * 1000,
      (err) =>
        console.error(JSON.stringify({
          level: "error",
          msg: "Orphan sweep failed",
          error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
        })),
    );
  }

  /**
   * The service over the store `settings.backend` names: the filesystem store in
   * `<dataDir>/blobs` (its leftover temporary files removed), or the S3 bucket of
   * `settings.s3` (its credentials read now); and a URL signer keyed from the relay secret.
   */
  static async open(options: {
    meta: BlobsOptions["meta"];
    identity: BlobsOptions["identity"];
    dataDir: string;
    relaySecret: Uint8Array;
    settings: BlobSettings;
    baseUrl: () => string;
  }): Promise<Blobs> {
    return new Blobs({
      meta: options.meta,
      identity: options.identity,
      store: options.settings.backend === "s3"
        ? new S3BlobStore(options.settings.s3, await readS3Credentials(options.settings.s3))
        : await FsBlobStore.open(blobsDir(options.dataDir)),
      signer: await UrlSigner.fromRelaySecret(options.relaySecret),
      settings: options.settings,
      baseUrl: options.baseUrl,
    });
  }

  /** Whether the bytes pass through Sealpost (its own PUT and GET routes); false with S3. */
  get servesBytes(): boolean {
    return !isDirect(this.options.store);
  }

  /** Starts the periodic orphan sweep. */
  startSweeper(): void {
    this.#sweeper.start();
  }

  /** Stops the orphan sweep, waiting for a sweep in progress. */
  async close(): Promise<void> {
    await this.#sweeper.stop();
  }

  /**
   * Issues a pre-signed PUT URL for `request` (already validated for syntax): 400
   * `unknown_recipient` for a user not registered here, 413 `quota_exceeded` when a declared
   * size cannot fit.
   */
  async uploadSlot(request: SlotRequest, baseUrl: string): Promise<UploadSlot> {
    const { identity, settings } = this.options;
    const key = { userId: request.recipientUserId, hash: request.hash };
    if (!isBlobUserId(key.userId) || !await identity.getUser(key.userId)) {
      throw new Invalid(
        "unknown_recipient",
        `No user "${key.userId}" is registered here`,
        "recipientUserId",
      );
    }
    if (typeof request.sizeBytes === "number") {
      await this.#assertRoom(key, request.sizeBytes);
    }
    const { store } = this.options;
    if (isDirect(store)) {
      const now = Math.floor(this.#now() / 1000);
      const expires = now + settings.upload_url_lifetime_seconds;
      const declared = { mime: request.mime ?? null, sizeBytes: request.sizeBytes ?? null };
      return {
        url: await store.presignPut(key, declared, { now, expires }),
        expiresAtUtc: new Date(expires * 1000).toISOString(),
        key: blobKeyString(key),
      };
    }
    const url = await this.#presign(
      {
        method: "PUT",
        path: blobPath(key),
        mime: request.mime ?? null,
        maxBytes: request.sizeBytes ?? MAX_FILE_BYTES,
      },
      settings.upload_url_lifetime_seconds,
      baseUrl,
    );
    return { ...url, key: blobKeyString(key) };
  }

  /**
   * Handles the pre-signed PUT: checks the signature, expiry and Content-Type, streams the
   * body into the store while hashing it, and records it. Fails with the {@linkcode DomainError}
   * the client gets; nothing of a failed upload stays behind.
   */
  async acceptUpload(
    key: BlobKey,
    query: SignedQuery,
    request: UploadRequest,
  ): Promise<UploadReceipt> {
    const { meta, settings } = this.options;
    const store = this.#bytes();
    const signed = await verifySignedQuery(
      this.options.signer,
      "PUT",
      blobPath(key),
      query,
      this.#now(),
    );
    if (!contentTypeMatches(request.contentType, signed.mime)) {
      throw new Forbidden(
        "content_type_mismatch",
        signed.mime === null
          ? `Content-Type "${request.contentType}" was not signed: the slot declared no mime, ` +
            "so send no Content-Type or application/octet-stream"
          : `Content-Type "${request.contentType ?? ""}" differs from the signed mime ` +
            `"${signed.mime}"`,
      );
    }
    const maxBytes = Math.min(signed.maxBytes!, MAX_FILE_BYTES);
    const declared = request.contentLength !== null && /^\d+$/.test(request.contentLength)
      ? Number(request.contentLength)
      : null;
    if (declared !== null && declared > maxBytes) {
      throw new TooLarge(
        "file_too_large",
        `Content-Length ${declared} exceeds the ${maxBytes}-byte limit`,
      );
    }
    if (declared !== null && declared > 0) await this.#assertRoom(key, declared);
    if (!request.body) {
      throw new Invalid("empty_body", "The body is empty; a file has 1 byte or more");
    }
    let staged;
    try {
      staged = await store.stage(key, request.body, maxBytes);
    } catch (err) {
      if (err instanceof BlobWriteError) throw writeError(err);
      throw err;
    }
    const sizeBytes = staged.sizeBytes;
    try {
      return await this.#lock.run(blobKeyString(key), async () => {
        const existed = await meta.get(key) !== null;
        if (!existed) await this.#assertRoom(key, sizeBytes);
        await staged.commit();
        try {
          const { created } = await meta.recordUpload(
            key,
            { mime: signed.mime, sizeBytes },
            settings.quota_bytes_per_user,
            new Date(this.#now()),
          );
          return {
            key: blobKeyString(key),
            hash: key.hash,
            sizeBytes,
            mime: signed.mime,
            created,
          };
        } catch (err) {
          if (!existed) await store.remove(key);
          if (err instanceof QuotaExceededError) throw quotaError(err);
          throw err;
        }
      });
    } finally {
      await staged.discard();
    }
  }

  /**
   * A fresh pre-signed GET URL of a stored blob, or null when it is not stored.
   * `lifetimeSeconds` defaults to `read_url_lifetime_seconds`, `baseUrl` to the public one.
   *
   * @example
   * ```ts
   * const read = await blobs.readUrl({ userId, hash }, { lifetimeSeconds: 604800 });
   * ```
   */
  async readUrl(
    key: BlobKey,
    options: { lifetimeSeconds?: number; baseUrl?: string } = {},
  ): Promise<PresignedUrl | null> {
    if (!isBlobUserId(key.userId)) return null;
    const { store } = this.options;
    if (isDirect(store)) {
      const meta = await this.#known(store, key);
      if (!meta) return null;
      const now = Math.floor(this.#now() / 1000);
      // A store URL lives at most as long as the store allows (S3: 7 days); expiresAtUtc says.
      const lifetime = options.lifetimeSeconds ?? this.options.settings.read_url_lifetime_seconds;
      const expires = now + Math.min(lifetime, store.maxUrlLifetimeSeconds);
      return {
        url: await store.presignGet(key, servedAs(meta.mime, key.hash), { now, expires }),
        expiresAtUtc: new Date(expires * 1000).toISOString(),
      };
    }
    if (!await this.options.meta.get(key)) return null;
    return await this.#presign(
      { method: "GET", path: blobPath(key), mime: null, maxBytes: null },
      options.lifetimeSeconds ?? this.options.settings.read_url_lifetime_seconds,
      options.baseUrl ?? this.options.baseUrl(),
    );
  }

  /**
   * Checks a pre-signed GET and returns the blob's metadata: 403 for a bad signature or an
   * expired URL, 404 when the blob is not stored.
   */
  async authorizeRead(key: BlobKey, query: SignedQuery): Promise<BlobMeta> {
    await verifySignedQuery(this.options.signer, "GET", blobPath(key), query, this.#now());
    const meta = await this.options.meta.get(key);
    if (!meta) throw new NotFound("blob_not_found", `No blob ${blobKeyString(key)}`);
    return meta;
  }

  /** Streams a stored blob (all of it, or `range`); 404 when its bytes are gone. */
  async read(key: BlobKey, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
    const stream = await this.#bytes().read(key, range);
    if (!stream) throw new NotFound("blob_not_found", `No blob ${blobKeyString(key)}`);
    return stream;
  }

  /**
   * Claims blobs of `userId` for `claimant` so the orphan sweep keeps them (idempotent). With
   * a direct store, an object not recorded yet is recorded first (`direct.ts`).
   */
  async claim(
    userId: string,
    hashes: string[],
    claimant: string,
  ): Promise<{ claimed: string[]; missing: string[] }> {
    const { store } = this.options;
    if (isDirect(store)) {
      await inParallel([...new Set(hashes)], (hash) => this.#known(store, { userId, hash }));
    }
    return await this.options.meta.claim(userId, hashes, new Date(this.#now()), claimant);
  }

  /** Releases `claimant`'s claims; blobs left unclaimed go to the orphan sweep (idempotent). */
  release(userId: string, hashes: string[], claimant: string): Promise<{ unclaimed: string[] }> {
    return this.options.meta.release(userId, hashes, new Date(this.#now()), claimant);
  }

  /**
   * Deletes the blobs no one claimed within `orphan_grace_seconds`; with a direct store also
   * the objects no claim or read recorded within it (found by listing the bucket).
   */
  async sweep(): Promise<SweepResult> {
    const { meta, store } = this.options;
    const cutoff = this.#now() - this.options.settings.orphan_grace_seconds * 1000;
    const swept = await sweepOrphans(meta, store, this.#lock, cutoff);
    if (!isDirect(store)) return swept;
    const unrecorded = await sweepUnrecorded(meta, store, this.#lock, cutoff);
    return { deleted: swept.deleted + unrecorded.deleted, bytes: swept.bytes + unrecorded.bytes };
  }

  /** The store the bytes pass through; the routes that need one exist only with it. */
  #bytes(): BlobStore {
    const { store } = this.options;
    if (isDirect(store)) throw new NotFound("not_found", "Bytes are served by the store");
    return store;
  }

  /** The row of `key`, recording a stored object first (under the key's lock). */
  #known(store: DirectBlobStore, key: BlobKey): Promise<BlobMeta | null> {
    return this.#lock.run(blobKeyString(key), () =>
      knownBlob(
        this.options.meta,
        store,
        key,
        this.options.settings.quota_bytes_per_user,
        new Date(this.#now()),
      ));
  }

  /**
   * 413 when a blob of `sizeBytes` would not fit in the user's quota. Asked of every blob
   * alike, stored already or not, so a full quota tells no uploader which bytes are stored.
   */
  async #assertRoom(key: BlobKey, sizeBytes: number): Promise<void> {
    const quota = this.options.settings.quota_bytes_per_user;
    const used = (await this.options.meta.usage(key.userId)).bytes;
    if (used + sizeBytes > quota) {
      throw quotaError(new QuotaExceededError(key.userId, sizeBytes, used, quota));
    }
  }

  async #presign(
    request: Omit<SignedRequest, "expires">,
    lifetimeSeconds: number,
    baseUrl: string,
  ): Promise<PresignedUrl> {
    const expires = Math.floor(this.#now() / 1000) + lifetimeSeconds;
    const sig = await this.options.signer.sign({ ...request, expires });
    const params = new URLSearchParams({ expires: String(expires) });
    if (request.mime !== null) params.set("mime", request.mime);
    if (request.maxBytes !== null) params.set("max", String(request.maxBytes));
    params.set("sig", sig);
    return {
      url: `${baseUrl}${request.path}?${params}`,
      expiresAtUtc: new Date(expires * 1000).toISOString(),
    };
  }
}
