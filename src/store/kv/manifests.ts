/**
 * The manifests port on Deno KV: `forms/{formId}`, one row per published form.
 *
 * @module
 */
import { keys } from "../keys.ts";
import { type FormRow, type ManifestPort, ManifestTooLargeError } from "../ports/manifests.ts";
import { KvWrite, WriteTooLargeError } from "../write.ts";

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

  async get(formId: string): Promise<FormRow | null> {
    return (await this.kv.get<FormRow>(keys.form(formId))).value;
  }

  async put(row: FormRow, expected: FormRow | null): Promise<boolean> {
    const current = await this.kv.get<FormRow>(keys.form(row.formId));
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

  async remove(expected: FormRow): Promise<boolean> {
    const current = await this.kv.get<FormRow>(keys.form(expected.formId));
    if (JSON.stringify(current.value) !== JSON.stringify(expected)) return false;
    return await new KvWrite().check(current).delete(current.key).commit(this.kv);
  }
}
