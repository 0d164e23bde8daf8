/**
 * The record-file routes of the vault (`file_routes.ts`) as OpenAPI route definitions, so
 * `GET /openapi.json` documents them beside the rest of the owner API.
 *
 * @module
 */
import { createRoute, z } from "@hono/zod-openapi";
import { errorContent as error, jsonContent as json } from "../http/openapi.ts";
import * as ids from "../http/ids.ts";
import { FILE_LINK_PATH } from "./files.ts";
import { FormIdParam, RecordIdParam, security, tags } from "./route_schemas.ts";

const linkText = (description: string) => z.string().openapi({ description });

/** The parameters of a decrypted-file link, as the vault signs them (see `files.ts`). */
const FileLinkQuery = z.object({
  size: linkText("The plaintext's size in bytes (the sealed reference's sizeBytes)"),
  mime: linkText("The plaintext's media type, served as Content-Type"),
  name: linkText('The file name, served in Content-Disposition ("" for none)'),
  exp: linkText("Unix seconds after which the link is refused (link_expired)"),
  sig: linkText("HMAC-SHA256 of the link under a key only this vault holds (hex)"),
});

/** The record-file routes, with their request and response schemas. */
export const fileRouteSpecs = {
  recordFile: createRoute({
    method: "get",
    path: "/vault/forms/{formId}/records/{recordId}/files/{fieldId}",
    tags,
    security,
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
      400: error("Malformed formId or recordId"),
      401: error("No owner token"),
      404: error("Unknown form or record; file_not_found: no uploaded file in that field"),
    },
  }),
  decryptedFile: createRoute({
    method: "get",
    path: `${FILE_LINK_PATH}/{formId}/{hash}`,
    tags,
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
      403: error("invalid_link (altered, malformed or not this vault's) or link_expired"),
      404: error("file_not_found: the relay no longer stores the file"),
      422: error("file_undecryptable: the stored bytes do not decrypt with the form's key"),
      429: error("Rate limited; see Retry-After"),
      502: error("relay_unavailable: the relay did not answer (role vault)"),
    },
  }),
};
