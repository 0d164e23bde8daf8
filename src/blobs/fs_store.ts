/**
 * The filesystem blob store: content-addressed files under `<data_dir>/blobs/`.
 *
 * Layout: `{userId}/{hash[0..2]}/{hash[2..4]}/{hash}`, and `tmp/` for uploads in progress.
 * An upload streams into a temporary file while a SHA-256 runs over it, is fsynced, and only
 * a matching hash is renamed into place (then the folder is fsynced), so a blob is either
 * complete or absent. Temporary files are removed on failure and when the store opens.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { FillingReader } from "./_filling_reader.ts";
import { assertBlobKey, type BlobKey } from "./key.ts";
import { type BlobStore, BlobWriteError, type ByteRange, type StagedBlob } from "./store.ts";

/** Folder of uploads in progress, inside the store's root. */
const TMP_DIR = "tmp";

/** Bytes read from disk per chunk when streaming a blob out. */
const READ_CHUNK_BYTES = 256 * 1024;

async function ignoreNotFound<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) written += await file.write(bytes.subarray(written));
}

async function syncDir(path: string): Promise<void> {
  const dir = await Deno.open(path, { read: true });
  try {
    await dir.sync();
  } finally {
    dir.close();
  }
}

/** Bytes hashed and written per step of an upload (one buffer, reused). */
const WRITE_CHUNK_BYTES = 1024 * 1024;

/** Streams `body` into `file`, hashing it; returns the size and the lowercase hex SHA-256. */
async function copyHashing(
  body: ReadableStream<Uint8Array>,
  file: Deno.FsFile,
  maxBytes: number,
): Promise<{ size: number; digest: string }> {
  const reader = new FillingReader(body);
  const hasher = createHash("sha256");
  let buffer = new ArrayBuffer(WRITE_CHUNK_BYTES);
  let size = 0;
  try {
    for (;;) {
      let filled;
      try {
        filled = await reader.fill(buffer);
      } catch (err) {
        throw new BlobWriteError(
          "unreadable",
          `The body could not be read to its end: ${(err as Error).message}`,
        );
      }
      buffer = filled.buffer;
      size += filled.bytes;
      // Decided while streaming: at most one buffer past the cap is ever read.
      if (size > maxBytes) {
        throw new BlobWriteError("too_large", `The body exceeds the ${maxBytes}-byte limit`);
      }
      if (filled.bytes > 0) {
        const chunk = new Uint8Array(buffer, 0, filled.bytes);
        hasher.update(chunk);
        await writeAll(file, chunk);
      }
      if (filled.done) break;
    }
  } catch (err) {
    await reader.cancel();
    throw err;
  }
  reader.release();
  return { size, digest: hasher.digest("hex") };
}

/**
 * The path segments of `key`'s file below the store's root (validated: none can leave it).
 *
 * @example
 * ```ts
 * blobPathParts({ userId, hash }); // [userId, "ab", "cd", "abcd…"]
 * ```
 */
export function blobPathParts(key: BlobKey): string[] {
  assertBlobKey(key);
  const { userId, hash } = key;
  return [userId, hash.slice(0, 2), hash.slice(2, 4), hash];
}

/**
 * Blob bytes in a folder on the local disk.
 *
 * @example
 * ```ts
 * const store = await FsBlobStore.open("./data/blobs");
 * const staged = await store.stage({ userId, hash }, request.body!, 52_428_800);
 * await staged.commit();
 * ```
 */
export class FsBlobStore implements BlobStore {
  private constructor(readonly root: string) {}

  /** Opens (creating it if needed) the store in `root` and removes leftover temp files. */
  static async open(root: string): Promise<FsBlobStore> {
    await Deno.mkdir(root, { recursive: true, mode: 0o700 });
    const tmp = join(root, TMP_DIR);
    await ignoreNotFound(Deno.remove(tmp, { recursive: true }));
    await Deno.mkdir(tmp, { mode: 0o700 });
    return new FsBlobStore(root);
  }

  /** The file of `key` (the key is validated first: no segment can leave the root). */
  pathOf(key: BlobKey): string {
    return join(this.root, ...blobPathParts(key));
  }

  async stage(
    key: BlobKey,
    body: ReadableStream<Uint8Array>,
    maxBytes: number,
  ): Promise<StagedBlob> {
    const target = this.pathOf(key);
    const tmp = join(this.root, TMP_DIR, `${crypto.randomUUID()}.part`);
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    let size: number;
    try {
      const copied = await copyHashing(body, file, maxBytes);
      size = copied.size;
      if (size === 0) throw new BlobWriteError("empty", "The body is empty");
      if (copied.digest !== key.hash) {
        throw new BlobWriteError(
          "hash_mismatch",
          `The body's SHA-256 ${copied.digest} differs from the hash ${key.hash}`,
        );
      }
      await file.sync();
    } catch (err) {
      file.close();
      await ignoreNotFound(Deno.remove(tmp));
      throw err;
    }
    file.close();
    return {
      sizeBytes: size,
      commit: async () => {
        const dir = dirname(target);
        await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
        await Deno.rename(tmp, target);
        await syncDir(dir);
      },
      discard: async () => {
        await ignoreNotFound(Deno.remove(tmp));
      },
    };
  }

  async size(key: BlobKey): Promise<number | null> {
    return (await ignoreNotFound(Deno.stat(this.pathOf(key))))?.size ?? null;
  }

  async read(key: BlobKey, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null> {
    const file = await ignoreNotFound(Deno.open(this.pathOf(key), { read: true }));
    if (!file) return null;
    let closed = false;
    const close = () => {
      if (!closed) {
        closed = true;
        file.close();
      }
    };
    let remaining = range ? range.end - range.start + 1 : Infinity;
    try {
      if (range && range.start > 0) await file.seek(range.start, Deno.SeekMode.Start);
    } catch (err) {
      close();
      throw err;
    }
    // A byte stream: a BYOB reader (the vault decrypting a file) reads straight into its own
    // reusable buffer; a default one gets 256 KiB chunks allocated for it.
    return new ReadableStream({
      type: "bytes",
      autoAllocateChunkSize: READ_CHUNK_BYTES,
      async pull(controller) {
        const request = controller.byobRequest!;
        try {
          const view = request.view!;
          const n = await file.read(
            new Uint8Array(view.buffer, view.byteOffset, Math.min(view.byteLength, remaining)),
          );
          if (n === null) {
            close();
            if (remaining !== Infinity) {
              controller.error(new Error(`Blob ${key.hash} ended ${remaining} bytes early`));
            } else {
              controller.close();
              request.respond(0);
            }
            return;
          }
          remaining -= n;
          request.respond(n);
          if (remaining === 0) {
            close();
            controller.close();
          }
        } catch (err) {
          close();
          controller.error(err);
        }
      },
      cancel: close,
    });
  }

  async remove(key: BlobKey): Promise<void> {
    await ignoreNotFound(Deno.remove(this.pathOf(key)));
  }
}
