/**
 * Ingest: pull each database's queue from the relay, open every sealed box, validate the
 * payload against the archived schema of (formId, formVersion), save a record (or a
 * quarantine row), and ack. In role `all` the ack is part of the atomic operation that saves
 * the record (the relay shares the store); over HTTP it follows the commit.
 *
 * Idempotent: a submission's record id is its submission id and the record keeps the newest
 * envelope version applied, so an envelope delivered again after a crash (saved, not acked)
 * is recognised and acked without a second record. Quarantine rows are keyed by
 * (submissionId, version) the same way.
 *
 * @module
 */
import { base64DecodedLength, concatBytes } from "../crypto/encoding.ts";
import { open } from "../crypto/sealed_box.ts";
import { announceRecordEvents, type StoredRecordEvent } from "../events/record_event.ts";
import { buildValuesSchema, type FieldDef } from "../forms/fields.ts";
import { type SubmissionPayload, SubmissionPayloadSchema } from "../forms/payload.ts";
import { ackMutations } from "../relay/queue.ts";
import {
  type VaultDatabaseRow,
  vaultKeys,
  type VaultQuarantineRow,
  type VaultRecordRow,
} from "../store/keys.ts";
import { GroupCommitter } from "../store/group_commit.ts";
import { deleteLargeValue } from "../store/large_value.ts";
import type { VaultForms } from "./forms.ts";
import type { VaultKeys } from "./keys.ts";
import { SealedBoxOpener } from "./opener.ts";
import {
  addRecordWrite,
  checkRecordSize,
  historyBytes,
  RecordTooLargeError,
  type RecordWrite,
} from "./records.ts";
import type { QueueItem, RelayLink } from "./relay_link.ts";

/** Bytes of one stored part of a quarantined ciphertext. */
const PART_BYTES = 60 * 1024;
/** Pages processed at once while draining. */
const PAGES_IN_FLIGHT = 2;
/** Pages at least this long are opened on a worker thread (its start costs a few ms). */
const WORKER_PAGE = 32;

/** What became of one envelope version. */
export type IngestOutcome = "record" | "quarantined" | "duplicate";

/** Why an envelope could not become a record. */
class Quarantine extends Error {
  constructor(readonly code: string, message: string, readonly formVersion: number | null) {
    super(message);
  }
}

/** Options of {@link Ingestor}. */
export interface IngestOptions {
  /** Envelopes per queue page. */
  batchSize: number;
  /** Milliseconds between polls when nothing announces new envelopes. */
  pollIntervalMs: number;
  /** Where operational errors go (never payloads or keys). */
  log?: (message: string) => void;
}

/** Counts of one drain. */
export interface DrainResult {
  records: number;
  quarantined: number;
  duplicates: number;
}

/**
 * Drains the queues of every database of the vault.
 *
 * @example
 * ```ts
 * const ingest = new Ingestor(kv, link, keys, forms, { batchSize: 100, pollIntervalMs: 2000 });
 * ingest.start();
 * await ingest.stop();
 * ```
 */
export class Ingestor {
  #running = false;
  #wake: (() => void) | null = null;
  #pending = false;
  #loop: Promise<void> | null = null;
  #onQueued = () => this.wake();
  #committer: GroupCommitter;
  #schemas = new WeakMap<object, ReturnType<typeof buildValuesSchema>>();
  /** formId → its database id (fixed when the form is created; forms are never deleted). */
  #formDatabases = new Map<string, string>();

  constructor(
    private kv: Deno.Kv,
    private link: RelayLink,
    private keys: VaultKeys,
    private forms: VaultForms,
    private options: IngestOptions,
  ) {
    // Two commits in flight: a submission has one version in the committer at a time (see
    // #settle), and nothing pages records by commit sequence.
    this.#committer = new GroupCommitter(kv, undefined, 2);
  }

  /** Starts the background loop: drains on start, on each `queued` event and every poll. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.link.events?.addEventListener("queued", this.#onQueued);
    this.#loop = this.#run();
  }

  /** Stops the loop after the drain in progress. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    this.link.events?.removeEventListener("queued", this.#onQueued);
    this.wake();
    await this.#loop;
  }

  /** Asks the loop to drain again soon. */
  wake(): void {
    this.#pending = true;
    this.#wake?.();
  }

  async #run() {
    while (this.#running) {
      this.#pending = false;
      try {
        await this.drain();
      } catch (err) {
        this.options.log?.(`Ingest: ${(err as Error).message}`);
      }
      if (!this.#running) break;
      if (this.#pending) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollIntervalMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  /** Drains every database's queue once, to its end. */
  async drain(): Promise<DrainResult> {
    const total: DrainResult = { records: 0, quarantined: 0, duplicates: 0 };
    for await (const entry of this.kv.list<VaultDatabaseRow>({ prefix: vaultKeys.databases() })) {
      const result = await this.drainDatabase(entry.value);
      total.records += result.records;
      total.quarantined += result.quarantined;
      total.duplicates += result.duplicates;
    }
    return total;
  }

  /**
   * Drains one database's queue to its end; stops at the first envelope it cannot settle.
   * A backlog is opened on a worker thread, overlapping the store work of this one.
   */
  async drainDatabase(db: VaultDatabaseRow): Promise<DrainResult> {
    let opener: SealedBoxOpener | null = null;
    try {
      return await this.#drainDatabase(db, (items) => {
        if (!opener && items >= WORKER_PAGE) opener = new SealedBoxOpener();
        return opener;
      });
    } finally {
      (opener as SealedBoxOpener | null)?.close();
    }
  }

  async #drainDatabase(
    db: VaultDatabaseRow,
    openerFor: (items: number) => SealedBoxOpener | null,
  ): Promise<DrainResult> {
    const result: DrainResult = { records: 0, quarantined: 0, duplicates: 0 };
    const pull = (after: number) =>
      later(this.link.pull(db.fingerprint, after, this.options.batchSize));
    // Pipelined: while a page is processed, the next one is read and processed too (a
    // submission's versions still in order, see #settle), and acks are written.
    const chains = new Map<string, Promise<unknown>>();
    const pages: Promise<() => boolean>[] = [];
    let acking = later(Promise.resolve());
    let failed = false;
    let next = pull(0);
    try {
      while (!failed && (this.#running || this.#loop === null)) {
        const items = (await next)();
        if (items.length === 0) break;
        next = pull(items.at(-1)!.seq);
        const opener = openerFor(items.length);
        pages.push(later(
          this.#settle(db, items, opener, chains).then(async (outcomes) => {
            const acks: number[] = [];
            let ok = true;
            for (const [i, outcome] of outcomes.entries()) {
              if (outcome instanceof Error) {
                this.options.log?.(
                  `Ingest of submission ${items[i].submissionId} version ${items[i].version} ` +
                    `failed and is not acknowledged: ${outcome.message}`,
                );
                ok = false;
                continue;
              }
              if (outcome === "record") result.records += 1;
              else if (outcome === "quarantined") result.quarantined += 1;
              else result.duplicates += 1;
              if (!this.link.addAck) acks.push(items[i].seq);
            }
            // Over HTTP: one ack at a time, in the order pages finish.
            const previous = acking;
            acking = later(previous.then((done) => {
              done();
              return acks.length > 0 ? this.link.ack(db.fingerprint, acks) : undefined;
            }));
            await acking;
            return ok;
          }),
        ));
        if (pages.length >= PAGES_IN_FLIGHT) failed = !(await pages.shift()!)();
      }
      while (pages.length > 0) if (!(await pages.shift()!)()) failed = true;
    } finally {
      await Promise.allSettled(pages);
      (await acking)();
    }
    return result;
  }

  /**
   * Processes a page: different submissions at once, the versions of one submission in order
   * (`chains` holds each submission's last item under way, across pages).
   */
  async #settle(
    db: VaultDatabaseRow,
    items: QueueItem[],
    opener: SealedBoxOpener | null,
    chains: Map<string, Promise<unknown>>,
  ): Promise<(IngestOutcome | Error)[]> {
    return await Promise.all(items.map((item) => {
      const previous = chains.get(item.submissionId) ?? Promise.resolve();
      const done = previous.then(() => this.ingestItem(db, item, opener)).catch((err) =>
        err as Error
      );
      chains.set(item.submissionId, done);
      done.then(() => {
        if (chains.get(item.submissionId) === done) chains.delete(item.submissionId);
      });
      return done;
    }));
  }

  /**
   * Turns one envelope version of `db`'s queue into a record, a quarantine row, or nothing
   * (a duplicate), acked with it when the relay shares the store; opens it on `opener`'s
   * worker when given.
   */
  ingestItem(
    db: VaultDatabaseRow,
    item: QueueItem,
    opener: SealedBoxOpener | null = null,
  ): Promise<IngestOutcome> {
    const addAck = this.link.addAck;
    return this.#ingest(
      db,
      item,
      opener,
      addAck && {
        mutations: ackMutations(item),
        add: (op) => addAck(op, db.fingerprint, item),
      },
    );
  }

  async #ingest(
    db: VaultDatabaseRow,
    item: QueueItem,
    opener: SealedBoxOpener | null,
    ack: InStoreAck | null,
  ): Promise<IngestOutcome> {
    const ciphertext = Uint8Array.fromBase64(item.ciphertext);
    try {
      const read = await this.#read(db, ciphertext, opener);
      // Claimed as soon as the envelope is readable: before its record commits (and, in role
      // all, its ack with it), and also when it goes to quarantine to wait for the owner's
      // retry; so neither a crash nor a long wait leaves its files to the orphan sweep.
      // Claims are idempotent: an envelope delivered again claims again.
      const owned = ownedHashes(read.values);
      if (owned.length > 0) await this.link.claim(db.relayUserId, owned);
      return await this.#apply(item, await this.#validate(db, item.formId, read), ack);
    } catch (err) {
      if (!(err instanceof Quarantine)) throw err;
      return await this.#quarantine(db, item, ciphertext, err, ack);
    }
  }

  /** Opens `ciphertext` and parses the payload (values not checked yet). */
  async #read(
    db: VaultDatabaseRow,
    ciphertext: Uint8Array,
    opener: SealedBoxOpener | null,
  ): Promise<SubmissionPayload> {
    const pair = await this.keys.databaseKey(db.fingerprint);
    try {
      const plain = await (opener ?? { open })!.open(ciphertext, pair.publicKey, pair.secretKey);
      return SubmissionPayloadSchema.parse(JSON.parse(new TextDecoder().decode(plain)));
    } catch (err) {
      const code = (err as { code?: string }).code === "decryption_failed"
        ? "decryption_failed"
        : "invalid_payload";
      throw new Quarantine(code, (err as Error).message.slice(0, 500), null);
    }
  }

  /** `payload` with its values checked against the archived schema of its form version. */
  async #validate(
    db: VaultDatabaseRow,
    formId: string,
    payload: SubmissionPayload,
  ): Promise<SubmissionPayload> {
    const quarantine = (code: string, message: string) =>
      new Quarantine(code, message, payload.formVersion);
    if (await this.#databaseOf(formId) !== db.id) {
      throw quarantine("unknown_form", `Form "${formId}" is not a form of database "${db.id}"`);
    }
    const version = await this.forms.version(formId, payload.formVersion);
    if (!version) {
      const newest = (await this.forms.row(formId))?.schemaVersion;
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
    const parsed = schema.safeParse(payload.values);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => issue.message).join("; ");
      throw quarantine("invalid_values", issues.slice(0, 1000));
    }
    return { ...payload, values: parsed.data };
  }

  async #databaseOf(formId: string): Promise<string | null> {
    const known = this.#formDatabases.get(formId);
    if (known) return known;
    const form = await this.forms.row(formId);
    if (form) this.#formDatabases.set(formId, form.databaseId);
    return form?.databaseId ?? null;
  }

  async #apply(
    item: QueueItem,
    payload: SubmissionPayload,
    ack: InStoreAck | null,
  ): Promise<IngestOutcome> {
    const qid = quarantineId(item);
    const recordKey = vaultKeys.record(item.formId, item.submissionId);
    const write: RecordWrite = {
      formId: item.formId,
      recordId: item.submissionId,
      schemaVersion: payload.formVersion,
      values: payload.values,
      submissionId: item.submissionId,
      appliedVersion: item.version,
    };
    try {
      const bytes = checkRecordSize(payload.values);
      // The common case, a new submission: its record key is free (a deleted record leaves a
      // tombstone there). One check instead of a read keeps ~100 records per atomic
      // operation. A quarantine row this envelope may have left (quarantined, then not acked)
      // is deleted blindly; with the ack in the same operation as the quarantine row, a
      // queued envelope has none.
      const fresh = [{ key: recordKey, versionstamp: null }];
      const blindParts = ack ? null : quarantineParts(base64DecodedLength(item.ciphertext));
      if (await this.#commitWrite(item, fresh, null, write, bytes, blindParts, ack)) {
        return "record";
      }
      for (let attempt = 0; attempt < 10; attempt++) {
        // One read for the record (or its tombstone) and a quarantine row of this envelope.
        const [current, stale] = await this.kv.getMany<[VaultRecordRow, VaultQuarantineRow]>([
          recordKey,
          vaultKeys.quarantine(qid),
        ]);
        const applied = current.value?.appliedVersion ?? 0;
        const wanted = applied < item.version;
        if (wanted && current.value?.deletedAt) {
          throw new Quarantine(
            "record_deleted",
            `The record of submission ${item.submissionId} was deleted; this is an amendment`,
            payload.formVersion,
          );
        }
        if (!wanted && !stale.value && !ack) return "duplicate";
        // The head's versionstamp covers owner edits and deletes; a stale quarantine row is
        // checked only when this commit deletes it.
        const checks = stale.value ? [current, stale] : [current];
        const ok = await this.#commitWrite(
          item,
          checks,
          current.value,
          wanted ? write : null,
          bytes,
          stale.value ? stale.value.parts : null,
          ack,
        );
        if (ok) return wanted ? "record" : "duplicate";
      }
      throw new Error(`Record of submission ${item.submissionId} kept changing`);
    } catch (err) {
      if (err instanceof RecordTooLargeError) {
        throw new Quarantine("too_large", err.message, payload.formVersion);
      }
      throw err;
    }
  }

  /**
   * Group-commits `write` (when given; over `current`) under `checks`, with the deletion of
   * this envelope's quarantine row of `staleParts` parts (none when null) and its ack (when
   * in-store), then announces the record's event. False when a check failed.
   */
  async #commitWrite(
    item: QueueItem,
    checks: Deno.AtomicCheck[],
    current: VaultRecordRow | null,
    write: RecordWrite | null,
    bytes: number,
    staleParts: number | null,
    ack: InStoreAck | null,
  ): Promise<boolean> {
    const qid = quarantineId(item);
    const parts = Math.ceil(bytes / (60 * 1024)) + 1;
    let event: StoredRecordEvent | null = null;
    const result = await this.#committer.commit({
      lock: item.submissionId,
      checks,
      mutations: 2 * parts + 6 + (current?.parts ?? 0) +
        (staleParts === null ? 0 : 1 + staleParts) + (ack?.mutations ?? 0),
      bytes: 2 * bytes + historyBytes(bytes) + 2048,
      apply: (op) => {
        if (staleParts !== null) {
          op.delete(vaultKeys.quarantine(qid));
          deleteLargeValue(op, vaultKeys.quarantineDataOf(qid), staleParts);
        }
        if (write) event = addRecordWrite(op, current, write, bytes);
        ack?.add(op);
      },
    });
    if (result.ok && event) announceRecordEvents(this.kv, [event]);
    return result.ok;
  }

  async #quarantine(
    db: VaultDatabaseRow,
    item: QueueItem,
    ciphertext: Uint8Array,
    why: Quarantine,
    ack: InStoreAck | null,
  ): Promise<IngestOutcome> {
    const id = quarantineId(item);
    const key = vaultKeys.quarantine(id);
    const existing = await this.kv.get<VaultQuarantineRow>(key);
    const parts = quarantineParts(ciphertext.length);
    if (!existing.value) {
      // The parts go first, in bounded operations; the row that refers to them commits last.
      for (let i = 0; i < parts; i += 8) {
        const op = this.kv.atomic();
        for (let j = i; j < Math.min(parts, i + 8); j++) {
          op.set(
            vaultKeys.quarantineData(id, j),
            ciphertext.subarray(j * PART_BYTES, (j + 1) * PART_BYTES),
          );
        }
        await op.commit();
      }
    }
    const row: VaultQuarantineRow = {
      id,
      databaseId: db.id,
      fingerprint: db.fingerprint,
      submissionId: item.submissionId,
      version: item.version,
      formId: item.formId,
      formVersion: why.formVersion,
      code: why.code,
      reason: why.message,
      receivedAt: item.receivedAt,
      quarantinedAt: existing.value?.quarantinedAt ?? new Date().toISOString(),
      parts,
    };
    const op = this.kv.atomic().set(key, row);
    ack?.add(op);
    await op.commit();
    return "quarantined";
  }

  /**
   * Processes a quarantined envelope again (after the owner fixed the form). It becomes a
   * record and leaves quarantine, or stays with the new reason.
   */
  async retry(row: VaultQuarantineRow): Promise<IngestOutcome> {
    const chunks: Uint8Array[] = [];
    for await (
      const entry of this.kv.list<Uint8Array>({ prefix: vaultKeys.quarantineDataOf(row.id) })
    ) {
      chunks.push(entry.value);
    }
    const ciphertext = concatBytes(...chunks);
    const db = (await this.kv.get<VaultDatabaseRow>(vaultKeys.database(row.databaseId))).value;
    if (!db) throw new Error(`Database "${row.databaseId}" of quarantined ${row.id} is gone`);
    // Acked when it was quarantined: nothing to ack now.
    return await this.#ingest(
      db,
      {
        seq: 0,
        submissionId: row.submissionId,
        version: row.version,
        formId: row.formId,
        recipientPubkey: db.publicKey,
        submitterId: null,
        receivedAt: row.receivedAt,
        ciphertext: ciphertext.toBase64(),
      },
      null,
      null,
    );
  }
}

/** The ack of an envelope, added to the operation that settles it (role all). */
interface InStoreAck {
  /** Mutations `add` adds. */
  mutations: number;
  add(op: Deno.AtomicOperation): void;
}

/**
 * Settles `promise` without leaving a rejection unhandled while it is not awaited yet; the
 * result is a function that returns its value or throws its error.
 */
function later<T>(promise: Promise<T>): Promise<() => T> {
  return promise.then((value) => () => value, (err) => () => {
    throw err;
  });
}

/** Parts of a quarantined ciphertext of `bytes` bytes. */
function quarantineParts(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / PART_BYTES));
}

function quarantineId(item: { submissionId: string; version: number }): string {
  return `${item.submissionId}.${item.version}`;
}

/** The hashes of owned file references (uploaded through the slot flow) among `values`. */
function ownedHashes(values: Record<string, unknown>): string[] {
  const out = new Set<string>();
  for (const value of Object.values(values)) {
    const ref = value as { owned?: unknown; hash?: unknown } | null;
    if (ref && typeof ref === "object" && ref.owned === true && typeof ref.hash === "string") {
      out.add(ref.hash);
    }
  }
  return [...out];
}
