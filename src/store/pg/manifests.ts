/**
 * The manifests port on PostgreSQL: `relay_forms`, one row per published form. The manifest is
 * kept as `json` (its text as published, key order included), and a publish applies only over
 * the row it read (a conditional insert or update: one winner across every process); so do a
 * closure (column `closed`, null while open) and a removal.
 *
 * @module
 */
import type { FormClosure } from "../ports/forms.ts";
import {
  type ManifestPort,
  ManifestTooLargeError,
  type PublishedForm,
} from "../ports/manifests.ts";
import { ROW_LIMITS, storedSize } from "../ports/limits.ts";
import type { Sql } from "./db.ts";

interface FormColumns {
  form_id: string;
  user_id: string;
  fingerprint: string;
  public_key: string;
  schema_version: number;
  manifest: string;
  published_at: Date;
  closed: string | null;
}

/** A closure as the `closed` column's text ("" for none, to compare with). */
const closureText = (closed: FormClosure | undefined) => closed ? JSON.stringify(closed) : "";

/**
 * Published forms in PostgreSQL.
 *
 * @example
 * ```ts
 * const manifests = new PgManifests(sql);
 * const row = await manifests.get("contact");
 * ```
 */
export class PgManifests implements ManifestPort {
  constructor(private readonly sql: Sql) {}

  async get(formId: string): Promise<PublishedForm | null> {
    const [r] = await this.sql<FormColumns[]>`
      select form_id, user_id, fingerprint, public_key, schema_version, manifest::text,
        published_at, closed::text
      from relay_forms where form_id = ${formId}`;
    if (!r) return null;
    return {
      formId: r.form_id,
      userId: r.user_id,
      fingerprint: r.fingerprint,
      publicKey: r.public_key,
      schemaVersion: r.schema_version,
      manifest: JSON.parse(r.manifest),
      publishedAt: r.published_at.toISOString(),
      ...(r.closed ? { closed: JSON.parse(r.closed) } : {}),
    };
  }

  async put(row: PublishedForm, expected: PublishedForm | null): Promise<boolean> {
    // The limit every backend keeps: Deno KV's 64 KiB a value, as it would measure the row.
    if (storedSize(row) > ROW_LIMITS.valueBytes) {
      throw new ManifestTooLargeError("The manifest exceeds 64 KiB as stored");
    }
    // Sent as text: a json-typed parameter would be encoded once more.
    const manifest = JSON.stringify(row.manifest);
    const closed = closureText(row.closed) || null;
    if (expected === null) {
      const inserted = await this.sql`
        insert into relay_forms (form_id, user_id, fingerprint, public_key, schema_version,
          manifest, published_at, closed)
        values (${row.formId}, ${row.userId}, ${row.fingerprint}, ${row.publicKey},
          ${row.schemaVersion}, ${manifest}::text::json, ${row.publishedAt},
          ${closed}::text::json)
        on conflict (form_id) do nothing returning form_id`;
      return inserted.length === 1;
    }
    if (expected.formId !== row.formId) return false;
    const updated = await this.sql`
      update relay_forms set user_id = ${row.userId}, fingerprint = ${row.fingerprint},
        public_key = ${row.publicKey}, schema_version = ${row.schemaVersion},
        manifest = ${manifest}::text::json, published_at = ${row.publishedAt},
        closed = ${closed}::text::json
      where ${this.#unchanged(expected)}
      returning form_id`;
    return updated.length === 1;
  }

  async remove(expected: PublishedForm): Promise<boolean> {
    const removed = await this.sql`
      delete from relay_forms where ${this.#unchanged(expected)} returning form_id`;
    return removed.length === 1;
  }

  /** The condition that the stored row is still `e`. */
  #unchanged(e: PublishedForm) {
    return this.sql`form_id = ${e.formId} and user_id = ${e.userId}
      and fingerprint = ${e.fingerprint} and public_key = ${e.publicKey}
      and schema_version = ${e.schemaVersion} and manifest::text = ${JSON.stringify(e.manifest)}
      and published_at = ${e.publishedAt}
      and coalesce(closed::text, '') = ${closureText(e.closed)}`;
  }
}
