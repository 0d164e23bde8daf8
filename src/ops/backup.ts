/**
 * `sealpost backup`: one archive with a consistent store snapshot, the blobs it refers to and
 * the data dir's secrets, taken while the service runs.
 *
 * The command reads the data dir itself, from its own process: the store is SQLite in WAL
 * mode, so `VACUUM INTO` copies it under one read transaction (every commit before it, none
 * after) while the server keeps writing. Nothing goes over HTTP, so no secret leaves the
 * machine except into the archive file (mode 0600).
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { dirname, join, relative, resolve, sep } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { blobPathParts } from "../blobs/index.ts";
import { blobKeys, HOLD_FILE, holdSegments, KV_FILE, SEGMENTS_DIR } from "../store/kv/index.ts";
import type { BlobMeta } from "../store/ports/blob_meta.ts";
import { VERSION } from "../version.ts";
import {
  type BackupManifest,
  BLOBS_PREFIX,
  FILES_PREFIX,
  FORMAT_VERSION,
  isStoreFile,
  MANIFEST_NAME,
  type ManifestFile,
  STORE_ENTRY,
} from "./backup_format.ts";
import { ArchiveWriter } from "./backup_archive.ts";

/** The backup could not be made; the message says why. */
export class BackupError extends Error {
  override name = "BackupError";
}

/** What a backup wrote. */
export interface BackupSummary {
  out: string;
  bytes: number;
  files: number;
  blobs: number;
  blobBytes: number;
  missingBlobs: string[];
}

/** Copies the store at `source` into the new file `target` under one read transaction. */
function snapshotStore(source: string, target: string): void {
  const db = new DatabaseSync(source);
  try {
    db.exec("PRAGMA busy_timeout = 30000");
    db.exec(`VACUUM INTO '${target.replaceAll("'", "''")}'`);
  } finally {
    db.close();
  }
}

/** The data dir's files other than the store and the blobs, relative paths with `/`. */
async function otherFiles(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      const rel = relative(dataDir, path).split(sep).join("/");
      if (entry.isDirectory && rel !== "blobs") await walk(path);
      else if (
        entry.isFile && !isStoreFile(rel) && !rel.endsWith(".tmp") &&
        rel !== `${SEGMENTS_DIR}/${HOLD_FILE}`
      ) out.push(rel);
    }
  };
  await walk(dataDir);
  return out.sort();
}

/**
 * Writes a backup of `dataDir` to `out` (a new file; written to `out.partial` first, renamed
 * when complete).
 *
 * @example
 * ```ts
 * const summary = await createBackup("./data", "backup.tar");
 * ```
 */
export async function createBackup(dataDir: string, out: string): Promise<BackupSummary> {
  const kvPath = join(dataDir, KV_FILE);
  try {
    await Deno.stat(kvPath);
  } catch {
    throw new BackupError(`No store in "${dataDir}" (${KV_FILE} is missing)`);
  }
  if (resolve(out).startsWith(resolve(dataDir) + sep)) {
    throw new BackupError(`"${out}" is inside the data dir; write the backup somewhere else`);
  }
  if (await Deno.lstat(out).then(() => true, () => false)) {
    throw new BackupError(`"${out}" exists; choose a new file for the backup`);
  }
  const work = await Deno.makeTempDir({ dir: dirname(out), prefix: ".sealpost-backup-" });
  const partial = `${out}.partial`;
  let releaseSegments: (() => Promise<void>) | null = null;
  try {
    const snapshot = join(work, KV_FILE);
    // Segment files stay until the archive is written: the snapshot's queue rows point into them.
    releaseSegments = await holdSegments(join(dataDir, SEGMENTS_DIR));
    snapshotStore(kvPath, snapshot);
    const file = await Deno.open(partial, { write: true, createNew: true, mode: 0o600 });
    const tar = new ArchiveWriter(file.writable);
    const files: ManifestFile[] = [];
    const addFile = async (path: string, name: string) => {
      const stat = await Deno.stat(path);
      const hash = sha256.create();
      const source = await Deno.open(path);
      // A segment file may grow while it is read: its first `size` bytes hold what the
      // snapshot refers to.
      await tar.add(
        { name, size: stat.size, mode: stat.mode ?? 0o600 },
        source.readable.pipeThrough(firstBytes(stat.size)),
        (chunk) => hash.update(chunk),
      );
      files.push({ path: name, size: stat.size, sha256: hash.digest().toHex() });
    };
    await Deno.chmod(snapshot, 0o600);
    await addFile(snapshot, STORE_ENTRY);
    for (const rel of await otherFiles(dataDir)) {
      await addFile(join(dataDir, ...rel.split("/")), FILES_PREFIX + rel);
    }
    const missingBlobs: string[] = [];
    let blobs = 0;
    let blobBytes = 0;
    // The blobs the snapshot knows, read from it (already archived) as they stream by.
    const kv = await Deno.openKv(snapshot);
    try {
      for await (const { value: meta } of kv.list<BlobMeta>({ prefix: blobKeys.metaAll() })) {
        const parts = blobPathParts(meta);
        let source;
        try {
          source = await Deno.open(join(dataDir, "blobs", ...parts));
        } catch (err) {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
          // Removed since the snapshot (the orphan sweep); the backup says so.
          missingBlobs.push(`${meta.userId}/${meta.hash}`);
          continue;
        }
        const size = (await source.stat()).size;
        await tar.add(
          { name: BLOBS_PREFIX + parts.join("/"), size, mode: 0o600 },
          source.readable,
        );
        blobs++;
        blobBytes += size;
      }
    } finally {
      kv.close();
    }
    const manifest: BackupManifest = {
      format: "sealpost-backup",
      formatVersion: FORMAT_VERSION,
      sealpostVersion: VERSION,
      createdAt: new Date().toISOString(),
      files,
      blobs,
      blobBytes,
      missingBlobs,
    };
    const manifestBytes = new TextEncoder().encode(JSON.stringify(manifest, null, 2) + "\n");
    await tar.add(
      { name: MANIFEST_NAME, size: manifestBytes.length, mode: 0o600 },
      ReadableStream.from([manifestBytes]),
    );
    await tar.finish();
    const written = await Deno.open(partial, { read: true, write: true });
    try {
      await written.sync();
    } finally {
      written.close();
    }
    await Deno.rename(partial, out);
    return {
      out,
      bytes: (await Deno.stat(out)).size,
      files: files.length,
      blobs: manifest.blobs,
      blobBytes,
      missingBlobs,
    };
  } catch (err) {
    await Deno.remove(partial).catch(() => {});
    throw err;
  } finally {
    await releaseSegments?.();
    await Deno.remove(work, { recursive: true });
  }
}

/** Passes on the first `size` bytes of a stream and drops the rest. */
function firstBytes(size: number): TransformStream<Uint8Array, Uint8Array> {
  let left = size;
  return new TransformStream({
    transform(chunk, controller) {
      if (left <= 0) return;
      controller.enqueue(chunk.length <= left ? chunk : chunk.subarray(0, left));
      left -= chunk.length;
    },
  });
}
