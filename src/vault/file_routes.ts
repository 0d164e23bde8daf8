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
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { OwnedFileRef } from "../forms/file_ref.ts";
import { Forbidden, NotFound } from "../errors/index.ts";
import { type OwnerEnv, requireOwner, type TokenSource } from "../auth/index.ts";
import { newRouter } from "../http/openapi.ts";
import { fileRouteSpecs as r } from "./file_route_specs.ts";
import { servedInline } from "./files.ts";
import type { Vault } from "./service.ts";

/** Lifetime of the read URLs the owner route hands out, in seconds. */
const OWNER_URL_LIFETIME_SECONDS = 3600;

function disposition(inline: boolean, fileName: string): string {
  const kind = inline ? "inline" : "attachment";
  if (!fileName) return kind;
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** A link whose parameters are missing or malformed was not signed here: 403, as a forgery. */
function invalidLink(result: { success: boolean }): undefined {
  if (!result.success) throw new Forbidden("invalid_link", "This file link is not valid");
  return undefined;
}

/**
 * Mounts the record-file routes (documented in the OpenAPI document).
 *
 * @example
 * ```ts
 * app.route("/", vaultFileRoutes(vault, identity));
 * ```
 */
export function vaultFileRoutes(vault: Vault, tokens: TokenSource): OpenAPIHono<OwnerEnv> {
  const app = newRouter<OwnerEnv>();
  const files = vault.files;
  app.openapi({ ...r.recordFile, middleware: [requireOwner(tokens)] }, async (c) => {
    const { formId, recordId, fieldId } = c.req.valid("param");
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
    }, 200);
  });
  app.openapi(r.decryptedFile, async (c) => {
    const { formId, hash } = c.req.valid("param");
    const link = await files.verify(formId, hash, c.req.valid("query"));
    const opened = await files.open(link);
    const inline = servedInline(link.mime);
    return c.body(opened.body, 200, {
      // The plaintext's size, signed in the link: sent as is, not chunked (a stream that ends
      // short of it, a damaged or dishonest file, fails the download).
      "content-length": String(link.sizeBytes),
      "content-type": link.mime,
      "content-disposition": disposition(inline, link.fileName),
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
    });
  }, invalidLink);
  return app;
}
