/**
 * `sealpost restore`: unpacks a backup archive into an empty (or new) data dir, checking
 * every file against the manifest and every blob against its content hash. Any failure
 * leaves the target as empty as it was found.
 *
 * @module
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { dirname, join } from "node:path";
import { isBlobUserId } from "../blobs/key.ts";
import { concatBytes } from "../crypto/encoding.ts";
import { KV_FILE } from "../store/kv/index.ts";
import {
  type BackupManifest,
  BLOBS_PREFIX,
  FILES_PREFIX,
  FORMAT_VERSION,
  MANIFEST_NAME,
  STORE_ENTRY,
} from "./backup_format.ts";
import { readArchive } from "./backup_archive.ts";

/** The archive or the target cannot be used; the message says why. */
export class RestoreError extends Error {
  override name = "RestoreError";
}

/** What a restore brought back. */
export interface RestoreSummary {
  dataDir: string;
  files: number;
  blobs: number;
  /** Blobs the backup could not copy (named in its manifest). */
  missingBlobs: string[];
  createdAt: string;
}

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;
const HASH = /^[0-9a-f]{64}$/;

/** Where an archive entry goes inside the data dir, or null for an unknown entry. */
function targetOf(name: string): { path: string[]; blob?: string } | null {
  const parts = name.split("/");
  if (parts.some((p) => p === "" || p === "." || p === ".." || p.includes("\\"))) return null;
  if (name === STORE_ENTRY) return { path: [KV_FILE] };
  if (name.startsWith(FILES_PREFIX)) return { path: parts.slice(1) };
  if (name.startsWith(BLOBS_PREFIX)) {
    const [, userId, a, b, hash] = parts;
    if (
      parts.length !== 5 || !isBlobUserId(userId) || !HASH.test(hash) ||
      a !== hash.slice(0, 2) || b !== hash.slice(2, 4)
    ) return null;
    return { path: parts, blob: hash };
  }
  return null;
}

/** Closes `file`, which its readable stream closes by itself once read to the end. */
function closeUnlessClosed(file: Deno.FsFile): void {
  try {
    file.close();
  } catch (err) {
    if (!(err instanceof Deno.errors.BadResource)) throw err;
  }
}

async function isEmptyDir(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return false;
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    if (err instanceof Deno.errors.NotADirectory) return false;
    throw err;
  }
}

async function readAll(data: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of data) {
    size += chunk.length;
    if (size > max) throw new RestoreError(`${MANIFEST_NAME} is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return concatBytes(...chunks);
}

function checkManifest(manifest: BackupManifest | null, seen: Map<string, string>, blobs: number) {
  if (!manifest || manifest.format !== "sealpost-backup") {
    throw new RestoreError(`The archive has no ${MANIFEST_NAME}: it is incomplete or no backup`);
  }
  if (manifest.formatVersion !== FORMAT_VERSION) {
    throw new RestoreError(
      `Backup format ${manifest.formatVersion} is not supported (this program reads ` +
        `${FORMAT_VERSION}); restore with Sealpost ${manifest.sealpostVersion} or newer`,
    );
  }
  for (const file of manifest.files) {
    const got = seen.get(file.path);
    if (got === undefined) throw new RestoreError(`The archive lacks "${file.path}"`);
    if (got !== file.sha256) throw new RestoreError(`"${file.path}" is damaged (SHA-256 differs)`);
  }
  if (seen.size !== manifest.files.length) {
    throw new RestoreError("The archive holds files its manifest does not list");
  }
  if (!seen.has(STORE_ENTRY)) throw new RestoreError(`The archive lacks "${STORE_ENTRY}"`);
  if (blobs !== manifest.blobs) {
    throw new RestoreError(`The archive holds ${blobs} blobs; its manifest says ${manifest.blobs}`);
  }
}

/**
 * Restores the backup `archive` into `dataDir`, which must be empty or not exist.
 *
 * @example
 * ```ts
 * const summary = await restoreBackup("backup.tar", "./data-restored");
 * ```
 */
export async function restoreBackup(archive: string, dataDir: string): Promise<RestoreSummary> {
  if (!await isEmptyDir(dataDir)) {
    throw new RestoreError(
      `"${dataDir}" is not empty; restore into a new or empty data dir ` +
        "(move the old one aside first)",
    );
  }
  let file;
  try {
    file = await Deno.open(archive);
  } catch (err) {
    throw new RestoreError(`Cannot open "${archive}": ${(err as Error).message}`);
  }
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const seen = new Map<string, string>();
  let manifest: BackupManifest | null = null;
  let blobs = 0;
  try {
    await readArchive(file.readable, async (entry, data) => {
      if (manifest) throw new RestoreError(`"${entry.name}" follows the manifest`);
      if (entry.name === MANIFEST_NAME) {
        manifest = JSON.parse(new TextDecoder().decode(await readAll(data, MAX_MANIFEST_BYTES)));
        return;
      }
      const target = targetOf(entry.name);
      if (!target) throw new RestoreError(`Unexpected entry "${entry.name}" in the archive`);
      if (!target.blob && seen.has(entry.name)) {
        throw new RestoreError(`"${entry.name}" appears twice in the archive`);
      }
      const path = join(dataDir, ...target.path);
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const out = await Deno.open(path, {
        write: true,
        createNew: true,
        mode: (entry.mode & 0o777) || 0o600,
      });
      const hash = sha256.create();
      const writer = out.writable.getWriter();
      for await (const chunk of data) {
        hash.update(chunk);
        await writer.write(chunk);
      }
      await out.sync();
      await writer.close();
      const digest = hash.digest().toHex();
      if (target.blob) {
        if (digest !== target.blob) throw new RestoreError(`Blob "${entry.name}" is damaged`);
        blobs++;
      } else seen.set(entry.name, digest);
    });
    checkManifest(manifest, seen, blobs);
  } catch (err) {
    for await (const entry of Deno.readDir(dataDir)) {
      await Deno.remove(join(dataDir, entry.name), { recursive: true });
    }
    if (err instanceof SyntaxError) throw new RestoreError(`${MANIFEST_NAME} is not JSON`);
    if (err instanceof RestoreError) throw err;
    throw new RestoreError(`"${archive}" cannot be restored: ${(err as Error).message}`);
  } finally {
    closeUnlessClosed(file);
  }
  const done = manifest as unknown as BackupManifest;
  return {
    dataDir,
    files: seen.size,
    blobs,
    missingBlobs: done.missingBlobs,
    createdAt: done.createdAt,
  };
}
