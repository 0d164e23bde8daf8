/**
 * The vault as one object: databases (keys registered with the relay), forms and their
 * manifests, ingest, quarantine, and the owner's record edits.
 *
 * @module
 */
import { open } from "../crypto/sealed_box.ts";
import { buildValuesSchema, type FieldDef } from "../forms/fields.ts";
import type { FilesMode, Manifest } from "../forms/manifest.ts";
import type { PersonPrincipal } from "../auth/principals.ts";
import { actionBy, type AuditLog, noAudit } from "../audit/sink.ts";
import { Access, type Gate } from "../people/access.ts";
import { ACCOUNT_FACT } from "../people/bootstrap.ts";
import { Conflict, NotFound, TooLarge, validationError } from "../errors/index.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { QuarantinedEnvelope } from "../store/ports/quarantine.ts";
import {
  InvalidCursorError,
  RecordTooLargeError,
  type RecordWrite,
  type VaultRecord,
} from "../store/ports/records.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import { AddressSync } from "./address_sync.ts";
import { buildManifest, formDeleted, formNotFound, type VaultForm, VaultForms } from "./forms.ts";
import { FormLifecycle } from "./form_lifecycle.ts";
import { VaultFiles } from "./files.ts";
import { type IngestOptions, Ingestor, type IngestOutcome } from "./ingest.ts";
import type { VaultKeys } from "./keys.ts";
import { PeriodicTask } from "../blobs/index.ts";
import { quarantineRelease, releaseFiles, type ReleaseResult } from "./file_release.ts";
import { invalidCursor, recordConflict, recordNotFound } from "./record_errors.ts";
import { sweepRetention } from "./retention.ts";
import { pruneAudit } from "../audit/retention.ts";
import type { RelayLink } from "./relay_link.ts";

/** The first-run demo form, kept so `serve` can print it on every start. */
export interface DemoInfo {
  formId: string;
  databaseId: string;
  manifestFingerprint: string;
  relayUrl: string;
  /** Set once the owner deleted the demo form (it is not made again). */
  deleted?: boolean;
}

/** The demo form's fields: a few kinds, including an image. */
export const DEMO_FIELDS: FieldDef[] = [
  { id: "name", label: "Your name", kind: "text", required: true, maxLength: 200 },
  { id: "email", label: "Email", kind: "email", required: true },
  { id: "rating", label: "Rating (1-5)", kind: "number", min: 1, max: 5 },
  { id: "subscribe", label: "Subscribe to news", kind: "boolean" },
  { id: "topic", label: "Topic", kind: "choice", options: ["question", "bug", "praise"] },
  { id: "photo", label: "Photo", kind: "image", accept: ["image/*"] },
];

/** The vault's options: ingest's, and who hears of deleted records (metrics). */
export interface VaultOptions extends IngestOptions {
  onRecordsDeleted?: (reason: "owner" | "retention", count: number) => void;
  /** The vault's public base URL, for decrypted-file links (default: the relay's URL). */
  publicUrl?: string;
  /** Where people's actions are reported (default: nowhere). */
  audit?: AuditLog;
  /** Audit entries older than this many days are pruned by maintenance (0 or absent: kept). */
  auditRetentionDays?: number;
}

/**
 * The owner side of Sealpost.
 *
 * @example
 * ```ts
 * const vault = new Vault(vaultKvPorts(kv), keys, link, { batchSize: 100, pollIntervalMs: 2000 });
 * vault.ingest.start();
 * ```
 */
export class Vault {
  readonly forms: VaultForms;
  /** Closing, reopening and deleting forms (the relay told first). */
  readonly lifecycle: FormLifecycle;
  readonly ingest: Ingestor;
  /** Read links of record files (decrypted by the vault for encrypted forms). */
  readonly files: VaultFiles;
  /** Keeps published manifests on the relay's current address (src/vault/address_sync.ts). */
  readonly address: AddressSync;
  /** Where people's actions are reported. */
  readonly audit: AuditLog;
  /** Who may do what on which database (src/people/access.ts). */
  readonly access: Access;
  #maintenance: PeriodicTask | null = null;

  constructor(
    /** The vault's storage (records are read through `store.records`). */
    readonly store: VaultPorts,
    readonly keys: VaultKeys,
    readonly link: RelayLink,
    private readonly options: VaultOptions,
  ) {
    this.audit = options.audit ?? noAudit;
    this.access = new Access(store.memberships);
    this.forms = new VaultForms(store.forms, this.audit);
    this.ingest = new Ingestor(store, link, keys, this.forms, options);
    this.files = new VaultFiles(
      store.vaultDatabases,
      keys,
      link,
      this.forms,
      options.publicUrl ?? link.relayUrl,
    );
    this.address = new AddressSync({ store, keys, link, log: options.log });
    this.lifecycle = new FormLifecycle(
      this.forms,
      link,
      this.audit,
      (formId) =>
        this.address.followOne(formId).catch((err) =>
          options.log?.(`Form ${formId} may carry an old address: ${(err as Error).message}`)
        ),
    );
  }

  /** A record of form `formId`, or a 404 naming it (the caller checks access to the form). */
  async record(formId: string, recordId: string): Promise<VaultRecord> {
    const record = await this.store.records.get(formId, recordId);
    if (!record) throw recordNotFound(formId, recordId);
    return record;
  }

  /**
   * A page of a form's records in record-id order (the caller checks access to the form); a
   * cursor that is not this list's is a 400 naming `cursor`.
   */
  async listRecords(
    formId: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<{ items: VaultRecord[]; nextCursor: string | null }> {
    try {
      return await this.store.records.list(formId, cursor, limit);
    } catch (err) {
      throw err instanceof InvalidCursorError ? invalidCursor() : err;
    }
  }

  /**
   * Deletes a record of a form `gate` lets through (its `delete` event), then releases its
   * files.
   */
  async deleteRecord(gate: Gate, formId: string, recordId: string): Promise<void> {
    const form = await this.forms.get(gate, formId);
    const outcome = await this.store.records.delete(formId, recordId);
    if (outcome === "missing") throw recordNotFound(formId, recordId);
    if (outcome === "conflict") throw recordConflict(recordId);
    this.audit.record(actionBy(gate.principal, "record_deleted", {
      databaseId: form.databaseId,
      target: { kind: "record", id: `${formId}/${recordId}` },
    }));
    this.options.onRecordsDeleted?.("owner", 1);
    await this.#releaseFiles();
  }

  /**
   * One maintenance pass at `nowMs`: the retention sweep, then every pending file release
   * (of deletes, of updates that dropped files, and of passes the relay missed), then the audit
   * log's retention (src/audit/retention.ts).
   */
  async maintain(
    nowMs = Date.now(),
  ): Promise<{ deleted: number; released: ReleaseResult; auditPruned: number }> {
    const deleted = await sweepRetention(this.store, nowMs);
    if (deleted > 0) this.options.onRecordsDeleted?.("retention", deleted);
    const released = await this.#releaseFiles();
    const days = this.options.auditRetentionDays ?? 0;
    const auditPruned = days > 0
      ? await pruneAudit(this.store.audit, await this.keys.manifestKey(), days, new Date(nowMs))
      : 0;
    return { deleted, released, auditPruned };
  }

  /** Runs {@link maintain} every `intervalMs` until {@link stopMaintenance}. */
  startMaintenance(intervalMs: number): void {
    this.#maintenance ??= new PeriodicTask(
      () => this.maintain(),
      intervalMs,
      (err) => this.options.log?.(`Retention sweep: ${(err as Error).message}`),
    );
    this.#maintenance.start();
  }

  /** Stops the periodic maintenance, waiting for a pass in progress. */
  async stopMaintenance(): Promise<void> {
    await this.#maintenance?.stop();
  }

  async #releaseFiles(): Promise<ReleaseResult> {
    const result = await releaseFiles(this.store, this.link);
    if (result.failed > 0) {
      this.options.log?.(
        `File release: ${result.failed} left for the next pass (${result.error})`,
      );
    }
    return result;
  }

  /**
   * Creates a database under the instance account (the vault fact `account`): a fresh X25519
   * key pair, registered with the relay by proof of possession (the vault opens the challenge
   * the relay sealed to the new key). An instance admin creates it; they become its owner.
   */
  async createDatabase(creator: PersonPrincipal, name: string): Promise<VaultDatabase> {
    const userId = await this.account();
    const pair = await this.keys.createDatabaseKey();
    const publicKey = pair.publicKey.toBase64();
    try {
      const relayUserId = await this.link.relayUserId(userId);
      const challenge = await this.link.startRegistration(userId, name, publicKey);
      const answer = await open(
        Uint8Array.fromBase64(challenge.sealedChallenge),
        pair.publicKey,
        pair.secretKey,
      );
      const id = await this.link.completeRegistration(
        userId,
        challenge.challengeId,
        answer.toBase64(),
      );
      const row: VaultDatabase = {
        id,
        userId,
        relayUserId,
        name,
        publicKey,
        fingerprint: pair.fingerprint,
        createdAt: new Date().toISOString(),
      };
      await this.store.vaultDatabases.put(row);
      await this.store.memberships.put({
        databaseId: id,
        personId: creator.personId,
        role: "owner",
        since: row.createdAt,
      });
      this.audit.record(actionBy(creator, "database_created", { databaseId: id }));
      return row;
    } catch (err) {
      await this.keys.discardDatabaseKey(pair.fingerprint);
      throw err;
    }
  }

  /** The relay account new databases are created under (set by bootstrap). */
  async account(): Promise<string> {
    const account = await this.store.vaultDatabases.fact<string>(ACCOUNT_FACT);
    if (!account) throw new NotFound("account_not_found", "This vault has no account yet");
    return account;
  }

  /** The databases `gate` lets through. */
  async listDatabases(gate: Gate): Promise<VaultDatabase[]> {
    const mine = await gate.databases();
    return (await this.store.vaultDatabases.list()).filter((db) => mine.has(db.id));
  }

  /** A database `gate` lets through, or a 404. */
  async database(gate: Gate, dbId: string): Promise<VaultDatabase> {
    const row = await this.store.vaultDatabases.get(dbId);
    const notFound = () =>
      new NotFound("database_not_found", `No database "${dbId}" in this vault`, "id");
    if (!row) throw notFound();
    await gate.check(row.id, notFound);
    return row;
  }

  /** Creates a form in database `databaseId` (schema version 1), under its account. */
  async createForm(
    gate: Gate,
    input: {
      databaseId: string;
      formId?: string;
      title: string;
      fields: unknown;
      allowedOrigins?: string[];
      submitLabel?: string;
      files?: FilesMode;
      drafts?: boolean;
    },
  ): Promise<VaultForm> {
    const db = await this.database(gate, input.databaseId);
    const form = await this.forms.create({ userId: db.userId, ...input });
    this.audit.record(actionBy(gate.principal, "form_created", {
      databaseId: db.id,
      target: { kind: "form", id: form.formId },
    }));
    return form;
  }

  /** The signed manifest of a form's current version (what `publish` sends and `export` prints). */
  async manifest(gate: Gate, formId: string): Promise<Manifest> {
    const form = await this.forms.get(gate, formId);
    if (form.deletedAt) throw formDeleted(formId);
    const db = await this.store.vaultDatabases.get(form.databaseId);
    if (!db) throw formNotFound(formId);
    const version = (await this.forms.version(formId, form.schemaVersion))!;
    const { secretKey } = await this.keys.manifestKey();
    const ownerName = await this.link.ownerName(form.userId);
    return buildManifest(version, db, this.link.relayUrl, secretKey, ownerName);
  }

  /** Signs the current version's manifest and publishes it to the relay, as the form's account. */
  async publish(gate: Gate, formId: string): Promise<{ manifest: Manifest; form: VaultForm }> {
    const manifest = await this.manifest(gate, formId);
    const before = await this.forms.get(gate, formId);
    await this.link.publish(before.userId, manifest);
    await this.forms.markPublished(formId, manifest.schemaVersion);
    const form = await this.forms.get(gate, formId);
    await this.lifecycle.republished(form);
    this.audit.record(actionBy(gate.principal, "form_published", {
      databaseId: form.databaseId,
      target: { kind: "form", id: formId },
      detail: { schemaVersion: manifest.schemaVersion },
    }));
    return { manifest, form };
  }

  /** Checks `values` against the form's current schema (strict, as ingest does). */
  async #validate(gate: Gate, formId: string, values: unknown) {
    const form = await this.forms.get(gate, formId);
    const parsed = buildValuesSchema(form.fields, { mode: "strict" }).safeParse(values);
    if (!parsed.success) throw validationError(parsed.error, "values");
    return { form, values: parsed.data as Record<string, unknown> };
  }

  /** Creates a record by hand (not from a submission). */
  async createRecord(gate: Gate, formId: string, input: unknown): Promise<VaultRecord> {
    const { form, values } = await this.#validate(gate, formId, input);
    const recordId = crypto.getRandomValues(new Uint8Array(16)).toHex();
    await this.#write(formId, recordId, (current) => {
      if (current) throw new Conflict("conflict", `Record "${recordId}" exists`);
      return {
        formId,
        recordId,
        schemaVersion: form.schemaVersion,
        values,
        submissionId: null,
        appliedVersion: 0,
      };
    });
    this.audit.record(actionBy(gate.principal, "record_created", {
      databaseId: form.databaseId,
      target: { kind: "record", id: `${formId}/${recordId}` },
    }));
    return await this.record(formId, recordId);
  }

  /**
   * Edits a record: `changes` are merged over its values, checked against the current schema.
   * The form is checked before the record is read (a record id of a form the caller may not
   * touch tells nothing).
   */
  async editRecord(
    gate: Gate,
    formId: string,
    recordId: string,
    changes: Record<string, unknown>,
  ): Promise<VaultRecord> {
    await this.forms.get(gate, formId);
    const before = await this.record(formId, recordId);
    const { form, values } = await this.#validate(gate, formId, {
      ...before.values,
      ...changes,
    });
    await this.#write(formId, recordId, (current) => {
      if (!current) {
        throw new NotFound("record_not_found", `No record "${recordId}"`, "recordId");
      }
      return {
        formId,
        recordId,
        schemaVersion: form.schemaVersion,
        values,
        submissionId: current.submissionId,
        appliedVersion: current.appliedVersion,
      };
    });
    this.audit.record(actionBy(gate.principal, "record_updated", {
      databaseId: form.databaseId,
      target: { kind: "record", id: `${formId}/${recordId}` },
    }));
    return await this.record(formId, recordId);
  }

  async #write(
    formId: string,
    recordId: string,
    change: (
      current: { submissionId: string | null; appliedVersion: number } | null,
    ) => RecordWrite,
  ) {
    try {
      if ((await this.store.records.write(formId, recordId, change)) === "conflict") {
        throw recordConflict(recordId);
      }
    } catch (err) {
      if (err instanceof RecordTooLargeError) {
        throw new TooLarge("record_too_large", err.message);
      }
      throw err;
    }
  }

  /** Quarantined envelopes of the databases `gate` lets through, oldest id first. */
  async listQuarantine(gate: Gate, formId?: string): Promise<QuarantinedEnvelope[]> {
    const mine = await gate.databases();
    return (await this.store.quarantine.list()).filter((row) =>
      mine.has(row.databaseId) && (!formId || row.formId === formId)
    );
  }

  /** The quarantined envelope `id` if `gate` lets its database through, else a 404. */
  async #quarantined(gate: Gate, id: string, field?: string): Promise<QuarantinedEnvelope> {
    const notFound = () =>
      new NotFound("quarantine_not_found", `No quarantined envelope "${id}"`, field);
    const row = await this.store.quarantine.get(id);
    if (!row) throw notFound();
    await gate.check(row.databaseId, notFound);
    return row;
  }

  /**
   * Retries one quarantined envelope (or every one of the databases `gate` lets through when
   * `id` is omitted).
   */
  async retryQuarantine(
    gate: Gate,
    id?: string,
  ): Promise<{ id: string; outcome: IngestOutcome; code?: string; reason?: string }[]> {
    const chosen = id ? [await this.#quarantined(gate, id, "id")] : await this.listQuarantine(gate);
    const out = [];
    for (const row of chosen) {
      const outcome = await this.ingest.retry(row);
      const after = await this.store.quarantine.get(row.id);
      out.push({
        id: row.id,
        outcome,
        ...(after ? { code: after.code, reason: after.reason } : {}),
      });
    }
    return out;
  }

  /** Drops a quarantined envelope for good (an editor's explicit decision). */
  async discardQuarantine(gate: Gate, id: string): Promise<void> {
    const row = await this.#quarantined(gate, id);
    // The files it claimed go back to the relay's sweep, unless its record refers to them.
    const release = await quarantineRelease(this.store, this.keys, row);
    if (!(await this.store.quarantine.discard(id, release))) {
      throw new Conflict("conflict", `The record of "${id}" changed meanwhile; try again`);
    }
    await this.#releaseFiles();
  }

  /** The first run's demo form id, or null (none made in this vault). */
  async demoFormId(): Promise<string | null> {
    return (await this.store.vaultDatabases.fact<DemoInfo>("demo"))?.formId ?? null;
  }

  /**
   * First run: a database, the manifest key and a published demo form, made by `gate`'s
   * person (the first person, owner of every database). Idempotent: the second call returns
   * what the first created.
   */
  async bootstrap(gate: Gate): Promise<DemoInfo> {
    const known = await this.store.vaultDatabases.fact<DemoInfo>("demo");
    if (known) {
      const deleted = Boolean((await this.forms.row(known.formId))?.deletedAt);
      return { ...known, relayUrl: this.link.relayUrl, ...(deleted ? { deleted } : {}) };
    }
    const db = (await this.listDatabases(gate))[0] ??
      await this.createDatabase(gate.principal, "main");
    const form = await this.createForm(gate, {
      databaseId: db.id,
      title: "Sealpost demo: feedback",
      fields: DEMO_FIELDS,
    });
    await this.publish(gate, form.formId);
    const info: DemoInfo = {
      formId: form.formId,
      databaseId: db.id,
      manifestFingerprint: await this.keys.manifestFingerprint(),
      relayUrl: this.link.relayUrl,
    };
    await this.store.vaultDatabases.setFact("demo", info);
    return info;
  }
}
