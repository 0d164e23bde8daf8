/**
 * What webhooks need to know about forms: the vault database one belongs to (whose members
 * may configure its webhooks), and its fields (order and kinds).
 *
 * Today the relay's published manifests answer; once the vault owns forms and archives every
 * schema version, it provides its own {@linkcode FormSource} and nothing else changes.
 *
 * @module
 */
import type { FieldKind } from "../forms/fields.ts";
import type { PublishedForm } from "../store/ports/manifests.ts";

/** A field of a form schema, as webhooks use it. */
export interface WebhookField {
  id: string;
  kind: FieldKind;
  /** Choice fields: the options, and whether several may be picked. */
  options?: string[];
  multiple?: boolean;
}

/** Where webhooks look forms up. */
export interface FormSource {
  /**
   * The id of the vault database form `formId` belongs to, or null when there is no such form
   * (or it is in no database of this vault).
   */
  databaseOf(formId: string): Promise<string | null>;
  /**
   * The fields of version `schemaVersion` (default: the current one) of form `formId`, in
   * order; null when unknown.
   */
  fields(formId: string, schemaVersion?: number): Promise<WebhookField[] | null>;
}

/** Anything that reads published form rows (the relay's `FormDirectory`). */
export interface FormRows {
  get(formId: string): Promise<PublishedForm | null>;
}

function toFields(fields: unknown): WebhookField[] {
  if (!Array.isArray(fields)) return [];
  return fields.map((f) => {
    const { id, kind, options, multiple } = f as WebhookField;
    return {
      id,
      kind,
      ...(Array.isArray(options) ? { options } : {}),
      ...(multiple === true ? { multiple } : {}),
    };
  });
}

/**
 * Forms as the relay publishes them: in no vault database (a form the vault does not hold
 * has no members to configure it), and fields are known for the published schema version
 * only (older versions fall back to the record's values).
 *
 * @example
 * ```ts
 * const source = relayFormSource(new FormDirectory(kv));
 * const fields = await source.fields("contact");
 * ```
 */
export function relayFormSource(rows: FormRows): FormSource {
  return {
    databaseOf: () => Promise.resolve(null),
    fields: async (formId, schemaVersion) => {
      const row = await rows.get(formId);
      if (!row) return null;
      return schemaVersion === undefined || row.schemaVersion === schemaVersion
        ? toFields((row.manifest as { fields?: unknown }).fields)
        : null;
    },
  };
}

/** Anything that reads the vault's forms (the vault's `VaultForms`). */
export interface VaultFormRows {
  row(formId: string): Promise<{ databaseId: string; schemaVersion: number } | null>;
  version(formId: string, schemaVersion: number): Promise<{ fields: unknown[] } | null>;
}

/**
 * Forms as the vault keeps them: each in its database, and every archived schema version has
 * its fields.
 *
 * @example
 * ```ts
 * const source = vaultFormSource(vault.forms);
 * const fields = await source.fields("contact", 2);
 * ```
 */
export function vaultFormSource(forms: VaultFormRows): FormSource {
  return {
    databaseOf: async (formId) => (await forms.row(formId))?.databaseId ?? null,
    fields: async (formId, schemaVersion) => {
      const version = schemaVersion ?? (await forms.row(formId))?.schemaVersion;
      if (version === undefined) return null;
      const row = await forms.version(formId, version);
      return row ? toFields(row.fields) : null;
    },
  };
}

/**
 * Asks each source in turn; the first that knows the form answers.
 *
 * @example
 * ```ts
 * const source = firstFormSource(vaultFormSource(vault.forms), relayFormSource(directory));
 * ```
 */
export function firstFormSource(...sources: FormSource[]): FormSource {
  return {
    databaseOf: async (formId) => {
      for (const source of sources) {
        const databaseId = await source.databaseOf(formId);
        if (databaseId !== null) return databaseId;
      }
      return null;
    },
    fields: async (formId, schemaVersion) => {
      for (const source of sources) {
        const fields = await source.fields(formId, schemaVersion);
        if (fields !== null) return fields;
      }
      return null;
    },
  };
}
