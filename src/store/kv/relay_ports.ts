/**
 * The relay's storage ports on Deno KV, built together: envelopes, identity, manifests and
 * blob metadata (the relay's side of the `Store` bundle).
 *
 * @module
 */
import { GroupCommitter } from "../group_commit.ts";
import type { BlobMetaPort } from "../ports/blob_meta.ts";
import type { EnvelopePort } from "../ports/envelopes.ts";
import type { IdentityPort } from "../ports/identity.ts";
import type { ManifestPort } from "../ports/manifests.ts";
import { KvBlobMeta } from "./blob_meta.ts";
import { KvEnvelopes } from "./envelopes.ts";
import { KvIdentity } from "./identity.ts";
import { KvManifests } from "./manifests.ts";

/** The relay's aggregates. */
export interface RelayPorts {
  envelopes: EnvelopePort;
  identity: IdentityPort;
  manifests: ManifestPort;
  blobMeta: BlobMetaPort;
}

/**
 * The relay's ports over `kv`. `storePath` (the store's file) lets queue depths be counted
 * without reading the queued rows. `close()` waits for intake's commits in flight and closes
 * what the ports opened (not `kv`).
 *
 * @example
 * ```ts
 * const relay = relayKvPorts(kv, { storePath: join(dataDir, KV_FILE) });
 * const user = await relay.identity.getUser(userId);
 * await relay.close();
 * ```
 */
export function relayKvPorts(
  kv: Deno.Kv,
  options: { storePath?: string } = {},
): RelayPorts & { close(): Promise<void> } {
  const committer = new GroupCommitter(kv);
  const envelopes = new KvEnvelopes(kv, committer, options);
  return {
    envelopes,
    identity: new KvIdentity(kv),
    manifests: new KvManifests(kv),
    blobMeta: new KvBlobMeta(kv),
    close: async () => {
      await committer.idle();
      envelopes.close();
    },
  };
}
