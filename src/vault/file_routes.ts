/**
 * Record files over HTTP:
 *
 * - `GET /vault-files/{formId}/{hash}`: an encrypted record file, decrypted by the vault
 *   while it streams, at a link the vault signed (see `files.ts`). No owner token: the
 *   signature and its expiry are the authority, so webhook receivers and the console's
 *   `<img>` can use it.
 * - `GET /vault/forms/{formId}/records/{recordId}/files/{fieldId}` (owner token): a fresh
 *   read URL of the record's owned file in that field, `{url, encrypted, fileName, mime,
 *   sizeBytes}` (what `records export --with-files` downloads).
 *
 * @module
 */
import { Hono } from "hono";
import type { OwnedFileRef } from "../forms/file_ref.ts";
import { NotFound } from "../errors/index.ts";
import { type OwnerEnv, requireOwner } from "../auth/index.ts";
import { FILE_LINK_PATH, servedInline } from "./files.ts";
import type { Vault } from "./service.ts";

/** Lifetime of the read URLs the owner route hands out, in seconds. */
const OWNER_URL_LIFETIME_SECONDS = 3600;

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
 * app.route("/", vaultFileRoutes(kv, vault));
 * ```
 */
export function vaultFileRoutes(kv: Deno.Kv, vault: Vault): Hono<OwnerEnv> {
  const app = new Hono<OwnerEnv>();
  const files = vault.files;
  app.get(
    "/vault/forms/:formId/records/:recordId/files/:fieldId",
    requireOwner(kv),
    async (c) => {
      const { formId, recordId, fieldId } = c.req.param();
      await vault.forms.get(c.var.owner.userId, formId);
      const record = await vault.record(formId, recordId);
      const ref = record.values[fieldId] as Partial<OwnedFileRef> | null | undefined;
      if (!ref || typeof ref !== "object" || ref.owned !== true || typeof ref.hash !== "string") {
        throw new NotFound(
          "file_not_found",
          `Field "${fieldId}" of record "${recordId}" holds no uploaded file`,
          "fieldId",
        );
      }
      const url = await files.url(formId, ref as OwnedFileRef, OWNER_URL_LIFETIME_SECONDS);
      if (!url) throw new NotFound("file_not_found", "The relay has no such file", "fieldId");
      return c.json({
        url,
        encrypted: ref.encryption === "age",
        fileName: ref.fileName ?? null,
        mime: ref.mime ?? null,
        sizeBytes: ref.sizeBytes ?? null,
      });
    },
  );
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
