/**
 * The manifests port on Deno KV: `forms/{formId}`, one row per published form.
 *
 * @module
 */
import { keys } from "./keys.ts";
import {
  type ManifestPort,
  ManifestTooLargeError,
  type PublishedForm,
} from "../ports/manifests.ts";
import { KvWrite } from "./write.ts";
import { WriteTooLargeError } from "../ports/limits.ts";

/**
 * Published forms in Deno KV.
 *
 * @example
 * ```ts
 * const manifests = new KvManifests(kv);
 * const row = await manifests.get("contact");
 * ```
 */
export class KvManifests implements ManifestPort {
  constructor(private readonly kv: Deno.Kv) {}

  async get(formId: string): Promise<PublishedForm | null> {
    return (await this.kv.get<PublishedForm>(keys.form(formId))).value;
  }

  async put(row: PublishedForm, expected: PublishedForm | null): Promise<boolean> {
    const current = await this.kv.get<PublishedForm>(keys.form(row.formId));
    if (JSON.stringify(current.value) !== JSON.stringify(expected)) return false;
    // A manifest within max_manifest_bytes as JSON can still take more than 64 KiB as a stored
    // value (a string with one character above U+00FF is stored two bytes a character).
    try {
      return await new KvWrite().check(current).set(keys.form(row.formId), row).commit(this.kv);
    } catch (err) {
      if (!(err instanceof WriteTooLargeError)) throw err;
      throw new ManifestTooLargeError("The manifest exceeds 64 KiB as stored");
    }
  }

  async remove(expected: PublishedForm): Promise<boolean> {
    const current = await this.kv.get<PublishedForm>(keys.form(expected.formId));
    if (JSON.stringify(current.value) !== JSON.stringify(expected)) return false;
    return await new KvWrite().check(current).delete(current.key).commit(this.kv);
  }
}
