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
import { assertOwns } from "../auth/rules.ts";
import { Conflict, NotFound, TooLarge, validationError } from "../errors/index.ts";
import {
  type VaultDatabaseRow,
  type VaultFormRow,
  type VaultFormVersionRow,
  vaultKeys,
} from "../store/keys.ts";
import { commitSized } from "../store/kv.ts";

/** A form with its current schema version, as the owner API shows it. */
export interface VaultForm extends VaultFormRow {
  title: string;
  fields: FieldDef[];
  retentionDays: number | null;
  /** Origins whose web pages may submit; empty: any (see `src/relay/cors.ts`). */
  allowedOrigins: string[];
  /** The form page's submit button label; "" for the default "Submit". */
  submitLabel: string;
  /** How senders handle files: "plain" (the spec's flow) or "encrypted" (age, to the form). */
  files: FilesMode;
}

/** The form view of a row at one of its versions. */
function formOf(row: VaultFormRow, version: VaultFormVersionRow): VaultForm {
  return {
    ...row,
    title: version.title,
    fields: version.fields as FieldDef[],
    allowedOrigins: version.allowedOrigins ?? [],
    submitLabel: version.submitLabel ?? "",
    files: version.files ?? "plain",
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

/**
 * The forms store. Archived versions never change, so they are cached in memory.
 *
 * @example
 * ```ts
 * const forms = new VaultForms(kv);
 * const form = await forms.create({ userId, databaseId, title: "Contact", fields });
 * ```
 */
export class VaultForms {
  #versions = new Map<string, VaultFormVersionRow>();

  constructor(private kv: Deno.Kv) {}

  /** Creates a form at schema version 1. A taken `formId` is a 409. */
  async create(input: {
    userId: string;
    databaseId: string;
    formId?: string;
    title: string;
    fields: unknown;
    allowedOrigins?: unknown;
    submitLabel?: string;
    files?: FilesMode;
  }): Promise<VaultForm> {
    const fields = parseFields(input.fields);
    const allowedOrigins = parseOrigins(input.allowedOrigins ?? []);
    const formId = input.formId ?? newFormId();
    const now = new Date().toISOString();
    const row: VaultFormRow = {
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
    const version: VaultFormVersionRow = {
      formId,
      schemaVersion: 1,
      title: input.title,
      fields: fields as Record<string, unknown>[],
      createdAt: now,
    };
    if (allowedOrigins.length) version.allowedOrigins = allowedOrigins;
    if (input.submitLabel) version.submitLabel = input.submitLabel;
    if (input.files === "encrypted") version.files = "encrypted";
    const op = this.kv.atomic()
      .check({ key: vaultKeys.form(formId), versionstamp: null })
      .set(vaultKeys.form(formId), row)
      .set(vaultKeys.formVersion(formId, 1), version);
    const result = await commitSized(op, schemaTooLarge);
    if (!result.ok) throw new Conflict("form_exists", `Form "${formId}" already exists`);
    return formOf(row, version);
  }

  /** Archives a new schema version (schemaVersion + 1); earlier versions stay readable. */
  async update(
    userId: string,
    formId: string,
    input: {
      title?: string;
      fields: unknown;
      allowedOrigins?: unknown;
      submitLabel?: string;
      files?: FilesMode;
    },
  ): Promise<VaultForm> {
    const fields = parseFields(input.fields);
    const origins = input.allowedOrigins === undefined ? null : parseOrigins(input.allowedOrigins);
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.kv.get<VaultFormRow>(vaultKeys.form(formId));
      const row = this.#owned(entry.value, userId, formId);
      const previous = await this.version(formId, row.schemaVersion);
      const next = {
        ...row,
        schemaVersion: row.schemaVersion + 1,
        updatedAt: new Date().toISOString(),
      };
      const version: VaultFormVersionRow = {
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
      // Left out, the file mode stays that of the previous version.
      if ((input.files ?? previous?.files ?? "plain") === "encrypted") version.files = "encrypted";
      const op = this.kv.atomic()
        .check(entry)
        .check({ key: vaultKeys.formVersion(formId, next.schemaVersion), versionstamp: null })
        .set(entry.key, next)
        .set(vaultKeys.formVersion(formId, next.schemaVersion), version);
      const result = await commitSized(op, schemaTooLarge);
      if (result.ok) return formOf(next, version);
    }
    throw new Conflict("conflict", `Form "${formId}" kept changing; update again`);
  }

  /** Sets (or, with null, turns off) a form's retention; no new schema version. */
  async setRetention(userId: string, formId: string, days: number | null): Promise<VaultForm> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.kv.get<VaultFormRow>(vaultKeys.form(formId));
      const row = this.#owned(entry.value, userId, formId);
      const next = { ...row, retentionDays: days, updatedAt: new Date().toISOString() };
      if ((await this.kv.atomic().check(entry).set(entry.key, next).commit()).ok) {
        return await this.get(userId, formId);
      }
    }
    throw new Conflict("conflict", `Form "${formId}" kept changing; try again`);
  }

  #owned(
    row: VaultFormRow | null,
    userId: string,
    formId: string,
  ): VaultFormRow {
    const notFound = () =>
      new NotFound("form_not_found", `No form "${formId}" in this vault`, "formId");
    if (!row) throw notFound();
    assertOwns(userId, row.userId, notFound);
    return row;
  }

  /** The form row, whoever owns it, or null. */
  async row(formId: string): Promise<VaultFormRow | null> {
    return (await this.kv.get<VaultFormRow>(vaultKeys.form(formId))).value;
  }

  /** The form of `userId` with its current version, or a 404. */
  async get(userId: string, formId: string): Promise<VaultForm> {
    const row = this.#owned(await this.row(formId), userId, formId);
    return formOf(row, (await this.version(formId, row.schemaVersion))!);
  }

  /** The forms of `userId`. */
  async list(userId: string): Promise<VaultForm[]> {
    const out: VaultForm[] = [];
    for await (const entry of this.kv.list<VaultFormRow>({ prefix: vaultKeys.forms() })) {
      if (entry.value.userId !== userId) continue;
      const row = this.#owned(entry.value, userId, entry.value.formId);
      out.push(formOf(row, (await this.version(row.formId, row.schemaVersion))!));
    }
    return out;
  }

  /** Every archived version of a form of `userId`, oldest first. */
  async versions(userId: string, formId: string): Promise<VaultFormVersionRow[]> {
    this.#owned(await this.row(formId), userId, formId);
    const out: VaultFormVersionRow[] = [];
    const iter = this.kv.list<VaultFormVersionRow>({ prefix: vaultKeys.formVersions(formId) });
    for await (const entry of iter) out.push(entry.value);
    return out;
  }

  /** The archived schema version (formId, schemaVersion), or null. */
  async version(formId: string, schemaVersion: number): Promise<VaultFormVersionRow | null> {
    const id = `${formId}\u0000${schemaVersion}`;
    const cached = this.#versions.get(id);
    if (cached) return cached;
    const row = (await this.kv.get<VaultFormVersionRow>(
      vaultKeys.formVersion(formId, schemaVersion),
    )).value;
    if (row) {
      if (this.#versions.size >= 10_000) this.#versions.delete(this.#versions.keys().next().value!);
      this.#versions.set(id, row);
    }
    return row;
  }

  /** Records that the version `schemaVersion` of a form was published. */
  async markPublished(formId: string, schemaVersion: number): Promise<VaultFormRow> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.kv.get<VaultFormRow>(vaultKeys.form(formId));
      if (!entry.value) break;
      const next = {
        ...entry.value,
        publishedVersion: schemaVersion,
        publishedAt: new Date().toISOString(),
      };
      if ((await this.kv.atomic().check(entry).set(entry.key, next).commit()).ok) return next;
    }
    throw new Conflict("conflict", `Form "${formId}" kept changing; publish again`);
  }
}

/**
 * The signed manifest of one archived version. It carries the form, its recipient and the
 * relay URL only: never any outbound (webhook) configuration.
 */
export function buildManifest(
  version: VaultFormVersionRow,
  db: VaultDatabaseRow,
  relayUrl: string,
  manifestSecretKey: Uint8Array,
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
  };
  const signed = signManifest(unsigned, manifestSecretKey);
  const parsed = ManifestSchema.safeParse(signed);
  if (!parsed.success) throw validationError(parsed.error, "manifest");
  return parsed.data;
}
