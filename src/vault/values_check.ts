/**
 * The values check of ingest: a payload's form must be one of the envelope's database, and its
 * values must pass the archived schema of (formId, formVersion), compiled once per version,
 * with their files encrypted exactly when that version says `files: "encrypted"`.
 *
 * @module
 */
import { buildValuesSchema, type FieldDef } from "../forms/fields.ts";
import type { SubmissionPayload } from "../forms/payload.ts";
import { formatIssues } from "../errors/index.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import { checkFileEncryption, MAX_REASON, Quarantine } from "./envelope_checks.ts";
import type { VaultForms } from "./forms.ts";

/**
 * Checks envelope payloads against their form's archived schema versions.
 *
 * @example
 * ```ts
 * const checker = new ValuesChecker(forms);
 * const payload = await checker.check(db, "contact", read); // throws a Quarantine if invalid
 * ```
 */
export class ValuesChecker {
  #forms: VaultForms;
  #schemas = new WeakMap<object, ReturnType<typeof buildValuesSchema>>();
  /** formId → its database id. */
  #formDatabases = new Map<string, string>();

  /** A checker reading form versions from `forms`. */
  constructor(forms: VaultForms) {
    this.#forms = forms;
  }

  /**
   * `payload` with its values checked against the archived schema of its form version; a
   * `Quarantine` when the form is not `db`'s, the version is unknown or the values are invalid.
   */
  async check(
    db: VaultDatabase,
    formId: string,
    payload: SubmissionPayload,
  ): Promise<SubmissionPayload> {
    const quarantine = (code: string, message: string) =>
      new Quarantine(code, message, payload.formVersion);
    if (await this.#databaseOf(formId) !== db.id) {
      throw quarantine("unknown_form", `Form "${formId}" is not a form of database "${db.id}"`);
    }
    const version = await this.#forms.version(formId, payload.formVersion);
    if (!version) {
      const newest = (await this.#forms.row(formId))?.schemaVersion;
      throw quarantine(
        "unknown_form_version",
        `Form "${formId}" has no schema version ${payload.formVersion} (newest: ${newest})`,
      );
    }
    let schema = this.#schemas.get(version);
    if (!schema) {
      // Archived versions never change: compile each one's schema once.
      schema = buildValuesSchema(version.fields as unknown as FieldDef[], { mode: "strict" });
      this.#schemas.set(version, schema);
    }
    let parsed;
    try {
      parsed = schema.safeParse(payload.values);
    } catch (err) {
      // Checking is pure: whatever throws here would throw on every retry of this envelope.
      throw quarantine("invalid_values", `values: could not be checked: ${(err as Error).message}`);
    }
    if (!parsed.success) {
      throw quarantine("invalid_values", formatIssues(parsed.error, "values", MAX_REASON));
    }
    checkFileEncryption(parsed.data, version.files ?? "plain", payload.formVersion);
    return { ...payload, values: parsed.data };
  }

  /** The database id of `formId` (fixed when the form is created; forms are never deleted). */
  async #databaseOf(formId: string): Promise<string | null> {
    const known = this.#formDatabases.get(formId);
    if (known) return known;
    const form = await this.#forms.row(formId);
    if (form) this.#formDatabases.set(formId, form.databaseId);
    return form?.databaseId ?? null;
  }
}
