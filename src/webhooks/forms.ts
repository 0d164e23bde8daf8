/**
 * What webhooks need to know about forms: who owns one, and its fields (order and kinds).
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
  /** The id of the user who owns form `formId`, or null when there is no such form. */
  ownerOf(formId: string): Promise<string | null>;
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
 * Forms as the relay publishes them: the owner is the publishing user, and fields are known
 * for the published schema version only (older versions fall back to the record's values).
 *
 * @example
 * ```ts
 * const source = relayFormSource(new FormDirectory(kv));
 * const owner = await source.ownerOf("contact");
 * ```
 */
export function relayFormSource(rows: FormRows): FormSource {
  return {
    ownerOf: async (formId) => (await rows.get(formId))?.userId ?? null,
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
  row(formId: string): Promise<{ userId: string; schemaVersion: number } | null>;
  version(formId: string, schemaVersion: number): Promise<{ fields: unknown[] } | null>;
}

/**
 * Forms as the vault keeps them: the owner is the user who created the form, and every
 * archived schema version has its fields.
 *
 * @example
 * ```ts
 * const source = vaultFormSource(vault.forms);
 * const fields = await source.fields("contact", 2);
 * ```
 */
export function vaultFormSource(forms: VaultFormRows): FormSource {
  return {
    ownerOf: async (formId) => (await forms.row(formId))?.userId ?? null,
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
    ownerOf: async (formId) => {
      for (const source of sources) {
        const owner = await source.ownerOf(formId);
        if (owner !== null) return owner;
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
