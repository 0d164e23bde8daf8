/**
 * The S3-compatible blob store (`blobs.backend = "s3"`): objects `{userId}/{hash}` in one
 * bucket, reached path-style (`{endpoint}/{bucket}/{key}`) with AWS Signature V4
 * (`aws4fetch`). Senders PUT and owners GET with pre-signed URLs; the relay only signs, asks
 * (HEAD), lists and deletes. Tested against Ceph's radosgw (tests/_support/services/).
 *
 * @module
 */
import { AwsClient } from "aws4fetch";
import { UpstreamFailed } from "../errors/index.ts";
import { type Config, ConfigError } from "../config/index.ts";
import { assertBlobKey, type BlobKey, blobKeyString, HASH_PATTERN, isBlobUserId } from "./key.ts";
import type { DirectBlobStore, StoredObject } from "./store.ts";

/** The `[blobs.s3]` settings. */
export type S3Settings = Config["blobs"]["s3"];

/** The store's credentials. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The longest lifetime AWS Signature V4 allows a pre-signed URL: 7 days. */
const MAX_PRESIGNED_SECONDS = 604_800;

/** Keys per page of a bucket listing (the S3 maximum). */
const LIST_PAGE = 1000;

async function secretFrom(file: string, envName: string, what: string): Promise<string> {
  if (file !== "") {
    let value: string;
    try {
      value = (await Deno.readTextFile(file)).trim();
    } catch (err) {
      throw new ConfigError(`blobs.s3: the ${what} file ${file} cannot be read: ${err}`);
    }
    if (value === "") throw new ConfigError(`blobs.s3: the ${what} file ${file} is empty`);
    return value;
  }
  const value = Deno.env.get(envName)?.trim() ?? "";
  if (value === "") {
    throw new ConfigError(`blobs.s3: the ${what} is not set: set ${envName}, or name a file`);
  }
  return value;
}

/**
 * Reads the credentials `settings` name: each from its file when one is named, else from its
 * environment variable. A {@linkcode ConfigError} names where it looked, never a value.
 *
 * @example
 * ```ts
 * const credentials = await readS3Credentials(config.blobs.s3);
 * ```
 */
export async function readS3Credentials(settings: S3Settings): Promise<S3Credentials> {
  return {
    accessKeyId: await secretFrom(
      settings.access_key_id_file,
      settings.access_key_id_env,
      "access key id (access_key_id_file / access_key_id_env)",
    ),
    secretAccessKey: await secretFrom(
      settings.secret_access_key_file,
      settings.secret_access_key_env,
      "secret access key (secret_access_key_file / secret_access_key_env)",
    ),
  };
}

/** `20261123T101500Z`: the SigV4 time stamp of epoch seconds `s`. */
export function amzDate(s: number): string {
  return new Date(s * 1000).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

function failure(what: string, status: number, body: string): UpstreamFailed {
  const code = /<Code>([^<]{1,64})<\/Code>/.exec(body)?.[1] ?? "";
  return new UpstreamFailed(
    "blob_store_error",
    `The blob store failed ${what}: HTTP ${status} ${code}`,
  );
}

/** The values of `<tag>` in `xml`, in order (S3 listing answers; no nesting of the same tag). */
function tags(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map((m) => m[1]);
}

/**
 * Blob bytes in an S3-compatible bucket.
 *
 * @example
 * ```ts
 * const store = new S3BlobStore(config.blobs.s3, await readS3Credentials(config.blobs.s3));
 * const url = await store.presignPut(key, { mime: "image/png", sizeBytes: 42 }, { now, expires });
 * ```
 */
export class S3BlobStore implements DirectBlobStore {
  readonly maxUrlLifetimeSeconds = MAX_PRESIGNED_SECONDS;
  readonly #client: AwsClient;
  readonly #bucketUrl: string;

  constructor(settings: S3Settings, credentials: S3Credentials) {
    this.#client = new AwsClient({
      ...credentials,
      service: "s3",
      region: settings.region,
      retries: 2,
    });
    this.#bucketUrl = `${settings.endpoint.replace(/\/+$/, "")}/${settings.bucket}`;
  }

  /** The object URL of `key` (validated: only its two safe segments). */
  objectUrl(key: BlobKey): string {
    assertBlobKey(key);
    return `${this.#bucketUrl}/${blobKeyString(key)}`;
  }

  /** A signed request to the store; a store that cannot be reached is a 502 too. */
  async #fetch(url: string, init: RequestInit, what: string): Promise<Response> {
    try {
      return await this.#client.fetch(url, init);
    } catch (err) {
      throw new UpstreamFailed(
        "blob_store_error",
        `The blob store could not be reached ${what}: ${(err as Error).message}`,
      );
    }
  }

  async #presign(
    method: "PUT" | "GET",
    url: URL,
    headers: Record<string, string>,
    { now, expires }: { now: number; expires: number },
  ): Promise<string> {
    url.searchParams.set("X-Amz-Expires", String(Math.max(1, expires - now)));
    const signed = await this.#client.sign(url.href, {
      method,
      headers,
      aws: { signQuery: true, allHeaders: true, datetime: amzDate(now) },
    });
    return signed.url;
  }

  presignPut(
    key: BlobKey,
    declared: { mime: string | null; sizeBytes: number | null },
    validity: { now: number; expires: number },
  ): Promise<string> {
    // Signed headers the sender must send as they are: the store refuses any other value.
    const headers: Record<string, string> = { "x-amz-content-sha256": key.hash };
    if (declared.mime !== null) headers["content-type"] = declared.mime;
    if (declared.sizeBytes !== null) headers["content-length"] = String(declared.sizeBytes);
    return this.#presign("PUT", new URL(this.objectUrl(key)), headers, validity);
  }

  presignGet(
    key: BlobKey,
    served: { contentType: string; contentDisposition: string },
    validity: { now: number; expires: number },
  ): Promise<string> {
    const url = new URL(this.objectUrl(key));
    url.searchParams.set("response-content-type", served.contentType);
    url.searchParams.set("response-content-disposition", served.contentDisposition);
    return this.#presign("GET", url, {}, validity);
  }

  async stat(key: BlobKey): Promise<StoredObject | null> {
    const what = `to tell about ${blobKeyString(key)}`;
    const res = await this.#fetch(this.objectUrl(key), { method: "HEAD" }, what);
    await res.body?.cancel();
    if (res.status === 404) return null;
    if (!res.ok) throw failure(what, res.status, "");
    // Never guessed: an object of unknown size would be judged empty and deleted.
    const length = res.headers.get("content-length") ?? "";
    if (!/^\d{1,15}$/.test(length)) throw failure(`${what} (no Content-Length)`, res.status, "");
    return {
      sizeBytes: Number(length),
      contentType: res.headers.get("content-type"),
      lastModified: new Date(res.headers.get("last-modified") ?? 0),
    };
  }

  async remove(key: BlobKey): Promise<void> {
    const what = `to delete ${blobKeyString(key)}`;
    const res = await this.#fetch(this.objectUrl(key), { method: "DELETE" }, what);
    const body = await res.text();
    if (!res.ok && res.status !== 404) throw failure(what, res.status, body);
  }

  async *list(): AsyncIterable<{ key: BlobKey; object: StoredObject }> {
    let token: string | null = null;
    do {
      const url = new URL(this.#bucketUrl);
      url.searchParams.set("list-type", "2");
      url.searchParams.set("max-keys", String(LIST_PAGE));
      if (token !== null) url.searchParams.set("continuation-token", token);
      const res = await this.#fetch(url.href, {}, "to list the bucket");
      const xml = await res.text();
      if (!res.ok) throw failure("to list the bucket", res.status, xml);
      for (const entry of tags(xml, "Contents")) {
        const [name] = tags(entry, "Key");
        const [userId, hash, ...rest] = (name ?? "").split("/");
        if (rest.length > 0 || !isBlobUserId(userId) || !HASH_PATTERN.test(hash ?? "")) continue;
        yield {
          key: { userId, hash },
          object: {
            sizeBytes: Number(tags(entry, "Size")[0]),
            contentType: null,
            lastModified: new Date(tags(entry, "LastModified")[0]),
          },
        };
      }
      token = tags(xml, "IsTruncated")[0] === "true"
        ? tags(xml, "NextContinuationToken")[0] ?? null
        : null;
    } while (token !== null);
  }
}
