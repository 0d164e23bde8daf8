/**
 * Helpers of the blob tests: random bytes, hashes, streams.
 */
import { createHash, randomBytes } from "node:crypto";
import { KvBlobMeta } from "../../src/store/kv/blob_meta.ts";
import { KvIdentity } from "../../src/store/kv/identity.ts";

/** `n` random bytes (any size). */
export function random(n: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(randomBytes(n));
}

/** Lowercase hex SHA-256. */
export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A stream of `bytes` in chunks of `chunk` bytes; a byte stream when `byob`. */
export function streamOf(
  bytes: Uint8Array,
  chunk: number,
  byob = false,
): ReadableStream<Uint8Array> {
  let offset = 0;
  if (!byob) {
    return new ReadableStream({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.slice(offset, offset + chunk));
        offset += chunk;
      },
    });
  }
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        // A pending BYOB read is answered by responding with 0 bytes after close.
        controller.byobRequest?.respond(0);
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + chunk));
      offset += chunk;
    },
  }) as ReadableStream<Uint8Array>;
}

/** The blob service's ports over `kv`, with the relay user "u1" (who may receive uploads). */
export async function blobPorts(kv: Deno.Kv): Promise<{ meta: KvBlobMeta; identity: KvIdentity }> {
  const identity = new KvIdentity(kv);
  const createdAt = new Date().toISOString();
  const token = { id: "t1", kind: "owner" as const, userId: "u1", secretHash: "0".repeat(64) };
  await identity.createUser({ id: "u1", name: "test", createdAt }, { ...token, createdAt });
  return { meta: new KvBlobMeta(kv), identity };
}
