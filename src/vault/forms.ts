/**
 * Forms of the vault: every schema version archived forever under (formId, schemaVersion),
 * and manifests built from them, signed with the vault's manifest key.
 *
 * @module
 */
import { signManifest } from "../crypto/signing.ts";
import { type FieldDef, FieldsSchema } from "../forms/fields.ts";
import {
  AllowedOriginsSchema,
  type FilesMode,
  type Manifest,
  ManifestSchema,
} from "../forms/manifest.ts";
import { actionBy, type AuditAction, type AuditLog, noAudit } from "../audit/sink.ts";
import type { Gate } from "../people/access.ts";
import { Conflict, NotFound, TooLarge, validationError } from "../errors/index.ts";
import type {
  FormChange,
  FormClosure,
  FormHead,
  FormsPort,
  FormVersion,
} from "../store/ports/forms.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import { WriteTooLargeError } from "../store/ports/limits.ts";

/** A form with its current schema version, as the owner API shows it. */
export interface VaultForm extends Omit<FormHead, "closed" | "deletedAt"> {
  title: string;
  fields: FieldDef[];
  retentionDays: number | null;
  /** Origins whose web pages may submit; empty: any (see `src/relay/api/cors.ts`). */
  allowedOrigins: string[];
  /** The form page's submit button label; "" for the default "Submit". */
  submitLabel: string;
  /** How senders handle files: "plain" (the spec's flow) or "encrypted" (age, to the form). */
  files: FilesMode;
  /** Whether the form page may keep a sender's draft, encrypted, on their device. */
  drafts: boolean;
  /** Null while the form takes submissions; else the owner's message and when it closed. */
  closed: FormClosure | null;
  /** When the owner deleted the form (its records stay until deleted too); null: not deleted. */
  deletedAt: string | null;
}

/** The form view of a row at one of its versions. */
function formOf(row: FormHead, version: FormVersion): VaultForm {
  const { closed, deletedAt, ...rest } = row;
  return {
    ...rest,
    closed: closed ?? null,
    deletedAt: deletedAt ?? null,
    title: version.title,
    fields: version.fields as FieldDef[],
    allowedOrigins: version.allowedOrigins ?? [],
    submitLabel: version.submitLabel ?? "",
    files: version.files ?? "plain",
    drafts: version.drafts === true,
  };
}

/** Checks allowed origins; a 400 naming the first bad one otherwise. */
function parseOrigins(origins: unknown): string[] {
  const parsed = AllowedOriginsSchema.safeParse(origins);
  if (!parsed.success) throw validationError(parsed.error, "allowedOrigins");
  return parsed.data;
}

/** Checks a field schema; a 400 naming the first bad field otherwise. */
export function parseFields(fields: unknown): FieldDef[] {
  const parsed = FieldsSchema.safeParse(fields);
  if (!parsed.success) throw validationError(parsed.error, "fields");
  return parsed.data;
}

/** A schema version (title and fields) over what one store row holds. */
const schemaTooLarge = () =>
  new TooLarge("form_too_large", "The form's title and fields exceed 64 KiB", "fields");

function newFormId(): string {
  return `f${crypto.getRandomValues(new Uint8Array(8)).toHex()}`;
}

/** Runs a forms port write; a row over the store's limit is the 413 `form_too_large`. */
async function sized<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof WriteTooLargeError) throw schemaTooLarge();
    throw err;
  }
}

/** A form update's outcome: the change, or the 404 (no form) or 409 (kept changing). */
function changed(result: FormChange | null | "conflict", formId: string, again: string) {
  if (result === null) throw formNotFound(formId);
  if (result === "conflict") {
    throw new Conflict("conflict", `Form "${formId}" kept changing; ${again}`);
  }
  return result;
}

/** The row of an update, which must exist and not be deleted. */
function live(row: FormHead, formId: string): FormHead {
  if (row.deletedAt) throw formDeleted(formId);
  return row;
}

/** The 404 of a form that does not exist, or that the caller is no member of its database. */
export function formNotFound(formId: string): NotFound {
  return new NotFound("form_not_found", `No form "${formId}" in this vault`, "formId");
}

/** A change to a form the owner deleted: only its records remain, to read and delete. */
export function formDeleted(formId: string): NotFound {
  return new NotFound(
    "form_deleted",
    `Form "${formId}" was deleted; its records are kept until you delete them`,
    "formId",
  );
}

/**
 * The vault's forms, over the forms port.
 *
 * @example
 * ```ts
 * const forms = new VaultForms(store.forms);
 * const form = await forms.create({ userId: db.userId, databaseId: db.id, title: "Contact", fields });
 * ```
 */
export class VaultForms {
  constructor(private store: FormsPort, private audit: AuditLog = noAudit) {}

  /** Reports `action` on form `form` by `gate`'s person. */
  reported(gate: Gate, action: AuditAction, form: VaultForm): VaultForm {
    this.audit.record(actionBy(gate.principal, action, {
      databaseId: form.databaseId,
      target: { kind: "form", id: form.formId },
    }));
    return form;
  }

  /**
   * Creates a form at schema version 1 under the account `userId` of its database (the caller
   * checked the database). A taken `formId` is a 409.
   */
  async create(input: {
    userId: string;
    databaseId: string;
    formId?: string;
    title: string;
    fields: unknown;
    allowedOrigins?: unknown;
    submitLabel?: string;
    /** Default "encrypted": the relay never holds a readable file. */
    files?: FilesMode;
    /** Default false: the form page keeps nothing on the sender's device. */
    drafts?: boolean;
  }): Promise<VaultForm> {
    const fields = parseFields(input.fields);
    const allowedOrigins = parseOrigins(input.allowedOrigins ?? []);
    const formId = input.formId ?? newFormId();
    const now = new Date().toISOString();
    const row: FormHead = {
      formId,
      userId: input.userId,
      databaseId: input.databaseId,
      schemaVersion: 1,
      publishedVersion: null,
      publishedAt: null,
      createdAt: now,
      updatedAt: now,
      retentionDays: null,
    };
    const version: FormVersion = {
      formId,
      schemaVersion: 1,
      title: input.title,
      fields: fields as Record<string, unknown>[],
      createdAt: now,
    };
    if (allowedOrigins.length) version.allowedOrigins = allowedOrigins;
    if (input.submitLabel) version.submitLabel = input.submitLabel;
    if ((input.files ?? "encrypted") === "encrypted") version.files = "encrypted";
    if (input.drafts === true) version.drafts = true;
    if (!(await sized(this.store.create(row, version)))) {
      throw new Conflict("form_exists", `Form "${formId}" already exists`);
    }
    return formOf(row, version);
  }

  /** Archives a new schema version (schemaVersion + 1); earlier versions stay readable. */
  async update(
    gate: Gate,
    formId: string,
    input: {
      title?: string;
      fields: unknown;
      allowedOrigins?: unknown;
      submitLabel?: string;
      files?: FilesMode;
      drafts?: boolean;
    },
  ): Promise<VaultForm> {
    const fields = parseFields(input.fields);
    const origins = input.allowedOrigins === undefined ? null : parseOrigins(input.allowedOrigins);
    await this.#owned(gate, formId);
    const result = await sized(this.store.update(formId, async (current) => {
      const row = live(current, formId);
      const previous = await this.version(formId, row.schemaVersion);
      const next = {
        ...row,
        schemaVersion: row.schemaVersion + 1,
        updatedAt: new Date().toISOString(),
      };
      const version: FormVersion = {
        formId,
        schemaVersion: next.schemaVersion,
        title: input.title ?? previous?.title ?? formId,
        fields: fields as Record<string, unknown>[],
        createdAt: next.updatedAt,
      };
      // Left out, the allowed origins stay those of the previous version.
      const allowed = origins ?? previous?.allowedOrigins ?? [];
      if (allowed.length) version.allowedOrigins = allowed;
      const label = input.submitLabel ?? previous?.submitLabel ?? "";
      if (label) version.submitLabel = label;
      // Left out, the file mode and drafts stay those of the previous version.
      if ((input.files ?? previous?.files ?? "plain") === "encrypted") version.files = "encrypted";
      if (input.drafts ?? (previous?.drafts === true)) version.drafts = true;
      return { row: next, version };
    }));
    const { row, version } = changed(result, formId, "update again");
    return this.reported(gate, "form_updated", formOf(row, version!));
  }

  /** Sets (or, with null, turns off) a form's retention; no new schema version. */
  async setRetention(gate: Gate, formId: string, days: number | null): Promise<VaultForm> {
    await this.#owned(gate, formId);
    const result = await this.store.update(formId, (current) => {
      const row = live(current, formId);
      return { row: { ...row, retentionDays: days, updatedAt: new Date().toISOString() } };
    });
    changed(result, formId, "try again");
    return this.reported(gate, "form_updated", await this.get(gate, formId));
  }

  /**
   * Closes the form (with the owner's message, already normalised) or, with null, reopens it;
   * no new schema version. The caller tells the relay first.
   */
  async setClosure(gate: Gate, formId: string, closed: FormClosure | null): Promise<VaultForm> {
    await this.#owned(gate, formId);
    const result = await this.store.update(formId, (current) => {
      const { closed: _, ...row } = live(current, formId);
      const updatedAt = new Date().toISOString();
      return { row: closed ? { ...row, closed, updatedAt } : { ...row, updatedAt } };
    });
    changed(result, formId, "try again");
    return await this.get(gate, formId);
  }

  /**
   * Marks the form deleted (idempotent): out of {@link list}, no more changes; {@link get}
   * still answers it, so its records can be read and deleted. The caller unpublishes first.
   */
  async markDeleted(gate: Gate, formId: string): Promise<VaultForm> {
    await this.#owned(gate, formId);
    const result = await this.store.update(formId, (row) => {
      return { row: row.deletedAt ? row : { ...row, deletedAt: new Date().toISOString() } };
    });
    changed(result, formId, "try again");
    return await this.get(gate, formId);
  }

  /** The form row, if `gate` lets its principal act on the form's database; a 404 otherwise. */
  async #owned(gate: Gate, formId: string): Promise<FormHead> {
    const row = await this.row(formId);
    if (!row) throw formNotFound(formId);
    await gate.check(row.databaseId, () => formNotFound(formId));
    return row;
  }

  /** The form row, whoever owns it, or null. */
  async row(formId: string): Promise<FormHead | null> {
    return await this.store.get(formId);
  }

  /** A form `gate` lets through, with its current version (also when deleted), or a 404. */
  async get(gate: Gate, formId: string): Promise<VaultForm> {
    const row = await this.#owned(gate, formId);
    return formOf(row, (await this.version(formId, row.schemaVersion))!);
  }

  /**
   * The forms of the databases `gate` lets through (with `deleted`, those deleted instead).
   */
  async list(gate: Gate, options: { deleted?: boolean } = {}): Promise<VaultForm[]> {
    const mine = await gate.databases();
    const out: VaultForm[] = [];
    for (const row of await this.store.list()) {
      if (!mine.has(row.databaseId) || !row.deletedAt !== !options.deleted) continue;
      out.push(formOf(row, (await this.version(row.formId, row.schemaVersion))!));
    }
    return out;
  }

  /** Every archived version of a form `gate` lets through, oldest first. */
  async versions(gate: Gate, formId: string): Promise<FormVersion[]> {
    await this.#owned(gate, formId);
    return await this.store.versions(formId);
  }

  /** The archived schema version (formId, schemaVersion), or null. */
  async version(formId: string, schemaVersion: number): Promise<FormVersion | null> {
    return await this.store.version(formId, schemaVersion);
  }

  /** Records that the version `schemaVersion` of a form was published. */
  async markPublished(formId: string, schemaVersion: number): Promise<FormHead> {
    const result = await this.store.update(formId, (row) => ({
      row: { ...row, publishedVersion: schemaVersion, publishedAt: new Date().toISOString() },
    }));
    if (result === null || result === "conflict") {
      throw new Conflict("conflict", `Form "${formId}" kept changing; publish again`);
    }
    return result.row;
  }
}

/**
 * The signed manifest of one archived version. It carries the form, its recipient, the
 * owner's display name (`ownerName`, the relay user's name; left out when empty) and the
 * relay URL only: never any outbound (webhook) configuration.
 */
export function buildManifest(
  version: FormVersion,
  db: VaultDatabase,
  relayUrl: string,
  manifestSecretKey: Uint8Array,
  ownerName: string,
): Manifest {
  const unsigned = {
    formId: version.formId,
    schemaVersion: version.schemaVersion,
    title: version.title,
    recipient: { publicKey: db.publicKey, userId: db.relayUserId },
    fields: version.fields,
    relayUrl,
    ...(version.allowedOrigins?.length ? { allowedOrigins: version.allowedOrigins } : {}),
    ...(version.submitLabel ? { submitLabel: version.submitLabel } : {}),
    files: version.files ?? "plain",
    ...(version.drafts ? { drafts: true } : {}),
    ...(ownerName ? { owner: { name: ownerName } } : {}),
  };
  const signed = signManifest(unsigned, manifestSecretKey);
  const parsed = ManifestSchema.safeParse(signed);
  if (!parsed.success) throw validationError(parsed.error, "manifest");
  return parsed.data;
}
