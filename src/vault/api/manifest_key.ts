/**
 * The vault's manifest-signing key (`/vault/manifest-key`): its public half and the
 * fingerprint senders pin.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent as json } from "../../http/openapi.ts";
import { forVault, type VaultApi } from "./_router.ts";

const manifestKey = createRoute(forVault({
  method: "get",
  path: "/vault/manifest-key",
  summary: "The manifest-signing key: its fingerprint is what senders pin",
  responses: {
    200: json(z.object({ fingerprint: z.string(), publicKey: z.string() }), "The key"),
  },
}));

/**
 * Adds the manifest-key route to the owner API.
 *
 * @example
 * ```ts
 * addManifestKeyRoute({ app, vault, body: [jsonBodyLimit] });
 * ```
 */
export function addManifestKeyRoute({ app, vault }: VaultApi): void {
  app.openapi(manifestKey, async (c) => {
    const { publicKey } = await vault.keys.manifestKey();
    return c.json({
      fingerprint: await vault.keys.manifestFingerprint(),
      publicKey: publicKey.toBase64(),
    }, 200);
  });
}
