/**
 * The port of the vault's forms: a form's row (its current and published schema versions, its
 * retention) and its archived schema versions, which never change once written.
 *
 * @module
 */

/** Why and since when a published form takes no submissions (its owner closed it). */
export interface FormClosure {
  /** The owner's words to senders, plain text ("" for none). */
  message: string;
  closedAt: string;
}

/** A form of the vault: its current and published schema versions. */
export interface FormHead {
  formId: string;
  userId: string;
  databaseId: string;
  /** The newest archived schema version. */
  schemaVersion: number;
  /** The schema version last published to the relay, or null. */
  publishedVersion: number | null;
  publishedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Records older than this many days (by creation) are deleted; null: kept. */
  retentionDays: number | null;
  /** Set while the owner has the form closed (the relay refuses its submissions). */
  closed?: FormClosure;
  /**
   * When the owner deleted the form: it is unpublished and out of the form list; its records
   * stay until the owner deletes them.
   */
  deletedAt?: string;
}

/** One archived schema version of a form; kept forever. */
export interface FormVersion {
  formId: string;
  schemaVersion: number;
  title: string;
  /** Field definitions (src/forms/fields.ts), as JSON data. */
  fields: Record<string, unknown>[];
  /** Origins whose pages may submit (the manifest's `allowedOrigins`); absent: any. */
  allowedOrigins?: string[];
  /** The form page's submit button label (the manifest's `submitLabel`); absent: "Submit". */
  submitLabel?: string;
  /** How senders handle files (the manifest's `files`); absent: "plain". */
  files?: "encrypted";
  /** Whether the form page may keep encrypted drafts (the manifest's `drafts`); absent: no. */
  drafts?: true;
  createdAt: string;
}

/** A form's new row and, when the change archives one, its new schema version. */
export interface FormChange {
  row: FormHead;
  version?: FormVersion;
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
   * limit throws `WriteTooLargeError` (src/store/kv/write.ts), nothing written.
   */
  create(row: FormHead, version: FormVersion): Promise<boolean>;

  /** The row of form `formId`, whoever owns it, or null. */
  get(formId: string): Promise<FormHead | null>;

  /** Every form row of the vault (all owners), ordered by form id. */
  list(): Promise<FormHead[]>;

  /** The archived version `schemaVersion` of a form, or null. A version read never changes. */
  version(formId: string, schemaVersion: number): Promise<FormVersion | null>;

  /** Every archived version of a form, oldest first. */
  versions(formId: string): Promise<FormVersion[]>;

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
    change: (row: FormHead) => FormChange | Promise<FormChange>,
  ): Promise<FormChange | null | "conflict">;
}
