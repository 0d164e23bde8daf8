/**
 * The port of the vault's forms: a form's row (its current and published schema versions, its
 * retention) and its archived schema versions, which never change once written.
 *
 * @module
 */
import type { VaultFormRow, VaultFormVersionRow } from "../rows.ts";

export type { VaultFormRow, VaultFormVersionRow };

/** A form's new row and, when the change archives one, its new schema version. */
export interface FormChange {
  row: VaultFormRow;
  version?: VaultFormVersionRow;
}

/**
 * Storage of the vault's forms.
 *
 * @example
 * ```ts
 * const created = await forms.create(row, version); // false: the form id is taken
 * ```
 */
export interface FormsPort {
  /**
   * Creates a form: its row and its version `version.schemaVersion`, in one atomic write.
   * False (nothing written) when a form with that id exists. A row over the store's size
   * limit throws `WriteTooLargeError` (src/store/write.ts), nothing written.
   */
  create(row: VaultFormRow, version: VaultFormVersionRow): Promise<boolean>;

  /** The row of form `formId`, whoever owns it, or null. */
  get(formId: string): Promise<VaultFormRow | null>;

  /** Every form row of the vault (all owners), ordered by form id. */
  list(): Promise<VaultFormRow[]>;

  /** The archived version `schemaVersion` of a form, or null. A version read never changes. */
  version(formId: string, schemaVersion: number): Promise<VaultFormVersionRow | null>;

  /** Every archived version of a form, oldest first. */
  versions(formId: string): Promise<VaultFormVersionRow[]>;

  /**
   * Read-modify-write of a form row. `change` gets the current row (it is not called when
   * there is none) and returns the next row and, optionally, a new archived version (whose
   * number must not exist yet). Both are written in one atomic write, only when the row has
   * not changed since `change` saw it; on a concurrent change `change` runs again (five tries).
   * Returns what was written; null when the form does not exist; "conflict" when it kept
   * changing. An error `change` throws propagates with nothing written; a version over the
   * size limit throws `WriteTooLargeError`.
   */
  update(
    formId: string,
    change: (row: VaultFormRow) => FormChange | Promise<FormChange>,
  ): Promise<FormChange | null | "conflict">;
}
