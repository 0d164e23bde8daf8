/**
 * `GET /vault-files/{formId}/{hash}`: an encrypted record file, decrypted by the vault while
 * it streams, at a link the vault signed (see `files.ts`). No owner token: the signature and
 * its expiry are the authority, so webhook receivers and the console's `<img>` can use it.
 *
 * @module
 */
import { Hono } from "hono";
import { FILE_LINK_PATH, servedInline, type VaultFiles } from "./files.ts";

function disposition(inline: boolean, fileName: string): string {
  const kind = inline ? "inline" : "attachment";
  if (!fileName) return kind;
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * Mounts the decrypted-file route.
 *
 * @example
 * ```ts
 * app.route("/", vaultFileRoutes(vault.files));
 * ```
 */
export function vaultFileRoutes(files: VaultFiles): Hono {
  const app = new Hono();
  app.get(`${FILE_LINK_PATH}/:formId/:hash`, async (c) => {
    const link = await files.verify(c.req.param("formId"), c.req.param("hash"), c.req.query());
    const opened = await files.open(link);
    const inline = servedInline(link.mime);
    return new Response(opened.body, {
      status: 200,
      headers: {
        "content-type": link.mime,
        "content-disposition": disposition(inline, link.fileName),
        "cache-control": "private, no-store",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
      },
    });
  });
  return app;
}
