/**
 * The vault as one object: databases (keys registered with the relay), forms and their
 * manifests, ingest, quarantine, and the owner's record edits.
 *
 * @module
 */
import { open } from "../crypto/sealed_box.ts";
import { buildValuesSchema, type FieldDef } from "../forms/fields.ts";
import type { FilesMode, Manifest } from "../forms/manifest.ts";
import { assertOwns } from "../auth/rules.ts";
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
import { buildManifest, formDeleted, type VaultForm, VaultForms } from "./forms.ts";
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
  #maintenance: PeriodicTask | null = null;

  constructor(
    /** The vault's storage (records are read through `store.records`). */
    readonly store: VaultPorts,
    readonly keys: VaultKeys,
    readonly link: RelayLink,
    private readonly options: VaultOptions,
  ) {
    this.forms = new VaultForms(store.forms);
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
      (formId) =>
        this.address.followOne(formId).catch((err) =>
          options.log?.(`Form ${formId} may carry an old address: ${(err as Error).message}`)
        ),
    );
  }

  /** A record of form `formId`, or a 404 naming it (the caller checks the form's owner). */
  async record(formId: string, recordId: string): Promise<VaultRecord> {
    const record = await this.store.records.get(formId, recordId);
    if (!record) throw recordNotFound(formId, recordId);
    return record;
  }

  /**
   * A page of a form's records in record-id order (the caller checks the form's owner); a
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

  /** Deletes a record of `userId`'s form (its `delete` event), then releases its files. */
  async deleteRecord(userId: string, formId: string, recordId: string): Promise<void> {
    await this.forms.get(userId, formId);
    const outcome = await this.store.records.delete(formId, recordId);
    if (outcome === "missing") throw recordNotFound(formId, recordId);
    if (outcome === "conflict") throw recordConflict(recordId);
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
   * Creates a database: a fresh X25519 key pair, registered with the relay by proof of
   * possession (the vault opens the challenge the relay sealed to the new key).
   */
  async createDatabase(userId: string, name: string): Promise<VaultDatabase> {
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
      return row;
    } catch (err) {
      await this.keys.discardDatabaseKey(pair.fingerprint);
      throw err;
    }
  }

  /** The databases of `userId`. */
  async listDatabases(userId: string): Promise<VaultDatabase[]> {
    return (await this.store.vaultDatabases.list()).filter((db) => db.userId === userId);
  }

  /** A database of `userId`, or a 404. */
  async database(userId: string, dbId: string): Promise<VaultDatabase> {
    const row = await this.store.vaultDatabases.get(dbId);
    const notFound = () =>
      new NotFound("database_not_found", `No database "${dbId}" in this vault`, "id");
    if (!row) throw notFound();
    assertOwns(userId, row.userId, notFound);
    return row;
  }

  /** Creates a form in database `databaseId` (schema version 1). */
  async createForm(
    userId: string,
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
    await this.database(userId, input.databaseId);
    return await this.forms.create({ userId, ...input });
  }

  /** The signed manifest of a form's current version (what `publish` sends and `export` prints). */
  async manifest(userId: string, formId: string): Promise<Manifest> {
    const form = await this.forms.get(userId, formId);
    if (form.deletedAt) throw formDeleted(formId);
    const db = await this.database(userId, form.databaseId);
    const version = (await this.forms.version(formId, form.schemaVersion))!;
    const { secretKey } = await this.keys.manifestKey();
    const ownerName = await this.link.ownerName(userId);
    return buildManifest(version, db, this.link.relayUrl, secretKey, ownerName);
  }

  /** Signs the current version's manifest and publishes it to the relay. */
  async publish(userId: string, formId: string): Promise<{ manifest: Manifest; form: VaultForm }> {
    const manifest = await this.manifest(userId, formId);
    await this.link.publish(userId, manifest);
    await this.forms.markPublished(formId, manifest.schemaVersion);
    const form = await this.forms.get(userId, formId);
    await this.lifecycle.republished(userId, form);
    return { manifest, form };
  }

  /** Checks `values` against the form's current schema (strict, as ingest does). */
  async #validate(userId: string, formId: string, values: unknown) {
    const form = await this.forms.get(userId, formId);
    const parsed = buildValuesSchema(form.fields, { mode: "strict" }).safeParse(values);
    if (!parsed.success) throw validationError(parsed.error, "values");
    return { form, values: parsed.data as Record<string, unknown> };
  }

  /** Creates a record by hand (not from a submission). */
  async createRecord(userId: string, formId: string, input: unknown): Promise<VaultRecord> {
    const { form, values } = await this.#validate(userId, formId, input);
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
    return await this.record(formId, recordId);
  }

  /** Edits a record: `changes` are merged over its values, checked against the current schema. */
  async editRecord(
    userId: string,
    formId: string,
    recordId: string,
    changes: Record<string, unknown>,
  ): Promise<VaultRecord> {
    const before = await this.record(formId, recordId);
    await this.forms.get(userId, formId);
    const { form, values } = await this.#validate(userId, formId, {
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

  /** Quarantined envelopes of `userId`'s databases, oldest id first. */
  async listQuarantine(userId: string, formId?: string): Promise<QuarantinedEnvelope[]> {
    const mine = new Set((await this.listDatabases(userId)).map((db) => db.id));
    return (await this.store.quarantine.list()).filter((row) =>
      mine.has(row.databaseId) && (!formId || row.formId === formId)
    );
  }

  /** Retries one quarantined envelope (or every one of `userId`'s when `id` is omitted). */
  async retryQuarantine(
    userId: string,
    id?: string,
  ): Promise<{ id: string; outcome: IngestOutcome; code?: string; reason?: string }[]> {
    const rows = await this.listQuarantine(userId);
    const chosen = id ? rows.filter((row) => row.id === id) : rows;
    if (id && chosen.length === 0) {
      throw new NotFound("quarantine_not_found", `No quarantined envelope "${id}"`, "id");
    }
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

  /** Drops a quarantined envelope for good (the owner's explicit decision). */
  async discardQuarantine(userId: string, id: string): Promise<void> {
    const row = (await this.listQuarantine(userId)).find((r) => r.id === id);
    if (!row) throw new NotFound("quarantine_not_found", `No quarantined envelope "${id}"`);
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
   * First run: a database, the manifest key and a published demo form for `userId`. Idempotent:
   * the second call returns what the first created.
   */
  async bootstrap(userId: string): Promise<DemoInfo> {
    const known = await this.store.vaultDatabases.fact<DemoInfo>("demo");
    if (known) {
      const deleted = Boolean((await this.forms.row(known.formId))?.deletedAt);
      return { ...known, relayUrl: this.link.relayUrl, ...(deleted ? { deleted } : {}) };
    }
    const db = (await this.listDatabases(userId))[0] ?? await this.createDatabase(userId, "main");
    const form = await this.createForm(userId, {
      databaseId: db.id,
      title: "Sealpost demo: feedback",
      fields: DEMO_FIELDS,
    });
    await this.publish(userId, form.formId);
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
