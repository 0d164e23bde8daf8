/**
 * The relay's storage ports on Deno KV, built together: envelopes, identity, manifests and
 * blob metadata (the relay's side of the `Store` bundle).
 *
 * @module
 */
import { join } from "node:path";
import { KV_FILE } from "./file.ts";
import type { RelayPorts } from "../ports/bundle.ts";
import { SegmentLog, SEGMENTS_DIR } from "./segments.ts";
import { KvBlobMeta } from "./blob_meta.ts";
import { KvEnvelopes } from "./envelopes.ts";
import { KvIdentity } from "./identity.ts";
import { KvManifests } from "./manifests.ts";

/**
 * The relay's ports over `kv`, the store of data dir `dataDir` (its queued ciphertexts lie in
 * `<dataDir>/segments`). `close()` waits for intake's commits in flight and closes what the
 * ports opened (not `kv`).
 *
 * @example
 * ```ts
 * const relay = await relayKvPorts(kv, "./data");
 * const user = await relay.identity.getUser(userId);
 * await relay.close();
 * ```
 */
export async function relayKvPorts(
  kv: Deno.Kv,
  dataDir: string,
): Promise<RelayPorts & { close(): Promise<void> }> {
  const segments = await SegmentLog.open(join(dataDir, SEGMENTS_DIR));
  const envelopes = new KvEnvelopes(kv, segments, { storePath: join(dataDir, KV_FILE) });
  return {
    envelopes,
    identity: new KvIdentity(kv),
    manifests: new KvManifests(kv),
    blobMeta: new KvBlobMeta(kv),
    close: () => envelopes.close(),
  };
}
