/**
 * Published form manifests: the owner publishes, anyone reads.
 *
 * The relay checks ownership (the recipient key must be one of the publisher's databases)
 * and stores the manifest as published; its signature is the vault's business.
 *
 * @module
 */
import type { Manifest } from "../forms/manifest.ts";
import { Conflict, Forbidden, Invalid, TooLarge } from "../errors/index.ts";
import { type FormRow, keys } from "../store/keys.ts";
import { decodeRecipientKey, recipientOwner } from "./identity.ts";
import { fingerprint } from "../crypto/keys.ts";
import { commitSized } from "../store/kv.ts";

/**
 * Stores `manifest` as the published form `formId` of `userId`.
 *
 * @throws {Invalid} when the manifest names another form or user, {@linkcode Forbidden} when
 * the key is not the user's, {@linkcode Conflict} when the form belongs to someone else or the
 * version goes backwards.
 */
export async function publishManifest(
  kv: Deno.Kv,
  userId: string,
  formId: string,
  manifest: Manifest,
): Promise<{ row: FormRow; created: boolean }> {
  if (manifest.formId !== formId) {
    throw new Invalid(
      "invalid_request",
      `Manifest formId "${manifest.formId}" differs from the path's "${formId}"`,
      "formId",
    );
  }
  if (manifest.recipient.userId !== userId) {
    throw new Invalid(
      "invalid_request",
      `recipient.userId "${manifest.recipient.userId}" is not the publishing user`,
      "recipient.userId",
    );
  }
  const publicKey = decodeRecipientKey(manifest.recipient.publicKey, "recipient.publicKey");
  const fp = fingerprint(publicKey);
  const owner = await recipientOwner(kv, fp);
  if (owner?.userId !== userId) {
    throw new Forbidden(
      "recipient_not_owned",
      "recipient.publicKey is not a registered database of this user",
      "recipient.publicKey",
    );
  }
  const current = await kv.get<FormRow>(keys.form(formId));
  if (current.value && current.value.userId !== userId) {
    throw new Conflict("form_id_taken", `Form id "${formId}" belongs to another user`);
  }
  if (current.value && manifest.schemaVersion < current.value.schemaVersion) {
    throw new Conflict(
      "stale_schema_version",
      `schemaVersion ${manifest.schemaVersion} is older than the published ${current.value.schemaVersion}`,
      "schemaVersion",
    );
  }
  const row: FormRow = {
    formId,
    userId,
    fingerprint: fp,
    publicKey: manifest.recipient.publicKey,
    schemaVersion: manifest.schemaVersion,
    manifest: manifest as Record<string, unknown>,
    publishedAt: new Date().toISOString(),
  };
  // A manifest within max_manifest_bytes as JSON can still take more than 64 KiB as a stored
  // value (a string with one character above U+00FF is stored two bytes a character).
  const result = await commitSized(
    kv.atomic().check(current).set(keys.form(formId), row),
    () => new TooLarge("manifest_too_large", "The manifest exceeds 64 KiB as stored"),
  );
  if (!result.ok) {
    throw new Conflict("conflict", `Form "${formId}" changed meanwhile; publish again`);
  }
  return { row, created: current.value === null };
}

/** The published form `formId`, or null. */
export async function getForm(kv: Deno.Kv, formId: string): Promise<FormRow | null> {
  return (await kv.get<FormRow>(keys.form(formId))).value;
}

/**
 * Published forms, read through a bounded in-memory cache (one process owns the KV file, and
 * publishing goes through {@link FormDirectory.publish}, which refreshes the entry).
 */
export class FormDirectory {
  #cache = new Map<string, FormRow>();

  constructor(private kv: Deno.Kv, private maxEntries = 10_000) {}

  /** The published form `formId`, or null. Unknown ids are not cached. */
  async get(formId: string): Promise<FormRow | null> {
    const cached = this.#cache.get(formId);
    if (cached) return cached;
    const row = await getForm(this.kv, formId);
    if (row) this.#remember(row);
    return row;
  }

  /** Publishes through {@link publishManifest} and refreshes the cache. */
  async publish(userId: string, formId: string, manifest: Manifest) {
    this.#cache.delete(formId);
    const result = await publishManifest(this.kv, userId, formId, manifest);
    this.#remember(result.row);
    return result;
  }

  #remember(row: FormRow) {
    if (this.#cache.size >= this.maxEntries) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(row.formId, row);
  }
}
