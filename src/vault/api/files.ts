/**
 * Record files over HTTP:
 *
 * - `GET /vault-files/{formId}/{hash}`: an encrypted record file, decrypted by the vault
 *   while it streams, at a link the vault signed (see `../files.ts`). No owner token: the
 *   signature and its expiry are the authority, so webhook receivers and the console's
 *   `<img>` can use it.
 * - `GET /vault/forms/{formId}/records/{recordId}/files/{fieldId}` (owner token): a fresh
 *   read URL of the record's owned file in that field, `{url, encrypted, fileName, mime,
 *   sizeBytes}` (what `records export --with-files` downloads).
 *
 * Both are in the OpenAPI document beside the rest of the owner API.
 *
 * @module
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { OwnedFileRef } from "../../forms/file_ref.ts";
import { Forbidden, NotFound } from "../../errors/index.ts";
import { type PersonEnv, requirePerson } from "../../auth/index.ts";
import { NEED } from "../../people/access.ts";
import type { PersonTokenSource } from "../../people/person_tokens.ts";
import { errors, jsonContent as json, newRouter } from "../../http/openapi.ts";
import * as ids from "../../http/ids.ts";
import { FILE_LINK_PATH, servedInline } from "../files.ts";
import type { Vault } from "../service.ts";
import { FormIdParam, forVault, RecordIdParam } from "./_router.ts";

/** Lifetime of the read URLs the owner route hands out, in seconds. */
const OWNER_URL_LIFETIME_SECONDS = 3600;

const linkText = (description: string) => z.string().openapi({ description });

/** The parameters of a decrypted-file link, as the vault signs them (see `../files.ts`). */
const FileLinkQuery = z.object({
  size: linkText("The plaintext's size in bytes (the sealed reference's sizeBytes)"),
  mime: linkText("The plaintext's media type, served as Content-Type"),
  name: linkText('The file name, served in Content-Disposition ("" for none)'),
  exp: linkText("Unix seconds after which the link is refused (link_expired)"),
  sig: linkText("HMAC-SHA256 of the link under a key only this vault holds (hex)"),
});

const recordFile = createRoute(forVault({
  method: "get",
  path: "/vault/forms/{formId}/records/{recordId}/files/{fieldId}",
  summary: "A fresh read URL of a record's uploaded file",
  description: 'An encrypted file (`encryption: "age"`) gets a signed `/vault-files/…` link ' +
    "that the vault decrypts while it streams; a plain one a pre-signed relay URL. Both " +
    "live an hour.",
  request: {
    params: z.object({
      formId: FormIdParam,
      recordId: RecordIdParam,
      fieldId: z.string().min(1).max(128).openapi({ description: "The file field's id" }),
    }),
  },
  responses: {
    200: json(
      z.object({
        url: z.string().openapi({ description: "GET it for the file's bytes (plaintext)" }),
        encrypted: z.boolean(),
        fileName: z.string().nullable(),
        mime: z.string().nullable(),
        sizeBytes: z.number().int().nullable(),
      }),
      "Where to read the file",
    ),
    ...errors({
      400: "Malformed formId or recordId",
      401: "No owner token",
      404: "Unknown form or record; file_not_found: no uploaded file in that field",
    }),
  },
}));

const decryptedFile = createRoute({
  method: "get",
  path: `${FILE_LINK_PATH}/{formId}/{hash}`,
  tags: ["vault"],
  summary: "An encrypted record file, decrypted by the vault while it streams",
  description: "No token: the link's signature and expiry are the authority (webhook " +
    "bodies and the console use these links). Images are served inline, everything else " +
    "as a download; always nosniff, no-store and a sandboxing Content-Security-Policy.",
  request: {
    params: z.object({
      formId: FormIdParam,
      hash: ids.Sha256HexSchema.clone().openapi({
        description: "SHA-256 of the stored ciphertext",
      }),
    }),
    query: FileLinkQuery,
  },
  responses: {
    200: {
      content: { "*/*": { schema: z.string().openapi({ format: "binary" }) } },
      description: "The plaintext, with the link's mime and file name",
    },
    ...errors({
      403: "invalid_link (altered, malformed or not this vault's) or link_expired",
      404: "file_not_found: the relay no longer stores the file",
      422: "file_undecryptable: the stored bytes do not decrypt with the form's key",
      429: "Rate limited; see Retry-After",
      502: "relay_unavailable: the relay did not answer (role vault)",
    }),
  },
});

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
 * app.route("/", vaultFileRoutes(vault, vault.store));
 * ```
 */
export function vaultFileRoutes(
  vault: Vault,
  tokens: PersonTokenSource,
): OpenAPIHono<PersonEnv> {
  const app = newRouter<PersonEnv>();
  const files = vault.files;
  app.openapi({ ...recordFile, middleware: [requirePerson(tokens)] }, async (c) => {
    const { formId, recordId, fieldId } = c.req.valid("param");
    await vault.forms.get(vault.access.gate(c.var.person, NEED.read), formId);
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
  app.openapi(decryptedFile, async (c) => {
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
