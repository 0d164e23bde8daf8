/**
 * The forms port on Deno KV: the row under `vaultKeys.form`, each archived version under
 * `vaultKeys.formVersion`; versions are cached in memory (they never change).
 *
 * @module
 */
import { FormVersionCache } from "../ports/form_version_cache.ts";
import { vaultKeys } from "./keys.ts";
import type { FormChange, FormHead, FormsPort, FormVersion } from "../ports/forms.ts";
import { KvWrite } from "./write.ts";

/**
 * The Deno KV forms store.
 *
 * @example
 * ```ts
 * const forms = new KvForms(kv);
 * await forms.create(row, version);
 * ```
 */
export class KvForms implements FormsPort {
  #versions = new FormVersionCache();

  constructor(private kv: Deno.Kv) {}

  async create(row: FormHead, version: FormVersion): Promise<boolean> {
    return await new KvWrite()
      .check({ key: vaultKeys.form(row.formId), versionstamp: null })
      .set(vaultKeys.form(row.formId), row)
      .set(vaultKeys.formVersion(row.formId, version.schemaVersion), version)
      .commit(this.kv);
  }

  async get(formId: string): Promise<FormHead | null> {
    return (await this.kv.get<FormHead>(vaultKeys.form(formId))).value;
  }

  async list(): Promise<FormHead[]> {
    return await Array.fromAsync(
      this.kv.list<FormHead>({ prefix: vaultKeys.forms() }),
      (entry) => entry.value,
    );
  }

  async version(formId: string, schemaVersion: number): Promise<FormVersion | null> {
    const key = vaultKeys.formVersion(formId, schemaVersion);
    return this.#versions.get(formId, schemaVersion) ??
      this.#versions.keep((await this.kv.get<FormVersion>(key)).value);
  }

  async versions(formId: string): Promise<FormVersion[]> {
    return await Array.fromAsync(
      this.kv.list<FormVersion>({ prefix: vaultKeys.formVersions(formId) }),
      (entry) => entry.value,
    );
  }

  async update(
    formId: string,
    change: (row: FormHead) => FormChange | Promise<FormChange>,
  ): Promise<FormChange | null | "conflict"> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.kv.get<FormHead>(vaultKeys.form(formId));
      if (!entry.value) return null;
      const next = await change(entry.value);
      const w = new KvWrite().check(entry).set(entry.key, next.row);
      if (next.version) {
        const key = vaultKeys.formVersion(formId, next.version.schemaVersion);
        w.check({ key, versionstamp: null }).set(key, next.version);
      }
      if (await w.commit(this.kv)) return next;
    }
    return "conflict";
  }
}
