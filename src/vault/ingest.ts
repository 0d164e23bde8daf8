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
import { open } from "../crypto/sealed_box.ts";
import type { SubmissionPayload } from "../forms/payload.ts";
import { CryptoError } from "../crypto/errors.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { QuarantinedEnvelope } from "../store/ports/quarantine.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import type { WritePart } from "../store/ports/write_part.ts";
import {
  checkFilesStored,
  checkMode,
  MAX_REASON,
  ownedFiles,
  parsePayload,
  Quarantine,
} from "./envelope_checks.ts";
import type { VaultForms } from "./forms.ts";
import type { VaultKeys } from "./keys.ts";
import { SealedBoxOpener } from "./opener.ts";
import { quarantinedItem, writeQuarantine } from "./quarantine_rows.ts";
import { RecordApplier } from "./record_apply.ts";
import { recordClaimant } from "./file_release.ts";
import type { PullOptions, QueueItem, RelayLink } from "./relay_link.ts";
import { ValuesChecker } from "./values_check.ts";
import { later, pause } from "./waits.ts";

/** Pages processed at once while draining. */
const PAGES_IN_FLIGHT = 2;
/** Pages at least this long are opened on a worker thread (its start costs a few ms). */
const WORKER_PAGE = 32;
/**
 * Seconds the envelopes of a page are leased to this worker: other vault workers on the same
 * queue skip them meanwhile (so they split a queue) and take them over this long after a
 * crash. A page normally settles in well under a second; one that takes longer may be
 * ingested twice, which ingest recognises (a duplicate).
 */
export const LEASE_SECONDS = 30;
/** Seconds one long poll of the relay waits for envelopes when the link announces none. */
export const WAIT_SECONDS = 25;

/** What became of one envelope version. */
export type IngestOutcome = "record" | "quarantined" | "duplicate";

/** Options of {@link Ingestor}. */
export interface IngestOptions {
  /** Envelopes per queue page. */
  batchSize: number;
  /** Milliseconds between polls when nothing announces new envelopes. */
  pollIntervalMs: number;
  /** Where operational errors go (never payloads or keys). */
  log?: (message: string) => void;
  /** Told of each envelope settled (metrics). */
  observe?: (outcome: IngestOutcome, item: QueueItem) => void;
}

/** Counts of one drain. */
export interface DrainResult {
  records: number;
  quarantined: number;
  duplicates: number;
}

/**
 * What a wake aborts the loop's wait with: made once (an abort without a reason makes a new
 * `DOMException`, stack trace and all, on each of the many wakes a busy relay sends).
 */
const WOKEN = new Error("Woken: envelopes arrived");

/**
 * Drains the queues of every database of the vault.
 *
 * @example
 * ```ts
 * const ingest = new Ingestor(store, link, keys, forms, { batchSize: 100, pollIntervalMs: 2000 });
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
  #records: RecordApplier;
  #values: ValuesChecker;

  constructor(
    private store: VaultPorts,
    private link: RelayLink,
    private keys: VaultKeys,
    forms: VaultForms,
    private options: IngestOptions,
  ) {
    // A submission has one version in the records port at a time (see #settle).
    this.#records = new RecordApplier(store.records, store.quarantine);
    this.#values = new ValuesChecker(forms);
  }

  /**
   * Starts the background loop: drains on start, then on each `queued` event and every poll
   * when the link announces arrivals (role `all`), else by long polls of every database's
   * queue (each drained as soon as envelopes arrive in it).
   */
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
      const controller = new AbortController();
      this.#wake = () => controller.abort(WOKEN);
      if (this.link.events) await pause(this.options.pollIntervalMs, controller.signal);
      else await this.#longPoll(controller.signal);
      this.#wake = null;
    }
  }

  /**
   * One round of long polls: every database's queue read with `wait` at once and drained as
   * soon as envelopes arrive, again and again for {@link WAIT_SECONDS}; at least the poll
   * interval long (a relay that does not wait is not asked in a busy loop). `signal` (a
   * wake, a stop) ends it; envelopes a cut-off poll leased on the relay are read again when
   * the lease ends.
   */
  async #longPoll(signal: AbortSignal) {
    const started = Date.now();
    const end = started + WAIT_SECONDS * 1000;
    try {
      const dbs = await this.store.vaultDatabases.list();
      await Promise.all(dbs.map(async (db) => {
        for (let more = true; more && !signal.aborted && Date.now() < end;) {
          const waitSeconds = Math.ceil((end - Date.now()) / 1000);
          try {
            const got = await this.drainDatabase(db, { waitSeconds, signal });
            more = got.records + got.quarantined + got.duplicates > 0;
          } catch (err) {
            if (!signal.aborted) this.options.log?.(`Ingest: ${(err as Error).message}`);
            more = false;
          }
        }
      }));
    } catch (err) {
      this.options.log?.(`Ingest: ${(err as Error).message}`);
    }
    await pause(started + this.options.pollIntervalMs - Date.now(), signal);
  }

  /** Drains every database's queue once, to its end. */
  async drain(): Promise<DrainResult> {
    const total: DrainResult = { records: 0, quarantined: 0, duplicates: 0 };
    for (const db of await this.store.vaultDatabases.list()) {
      const result = await this.drainDatabase(db);
      total.records += result.records;
      total.quarantined += result.quarantined;
      total.duplicates += result.duplicates;
    }
    return total;
  }

  /**
   * Drains one database's queue to its end; stops at the first envelope it cannot settle.
   * A backlog is opened on a worker thread, overlapping the store work of this one. Pages are
   * leased ({@link LEASE_SECONDS}); with `first`, the first pull waits up to `waitSeconds` for
   * envelopes to arrive (a long poll `signal` ends early).
   */
  async drainDatabase(
    db: VaultDatabase,
    first: { waitSeconds: number; signal: AbortSignal } | null = null,
  ): Promise<DrainResult> {
    let opener: SealedBoxOpener | null = null;
    try {
      return await this.#drainDatabase(db, first, (items) => {
        if (!opener && items >= WORKER_PAGE) opener = new SealedBoxOpener();
        return opener;
      });
    } finally {
      (opener as SealedBoxOpener | null)?.close();
    }
  }

  async #drainDatabase(
    db: VaultDatabase,
    first: PullOptions | null,
    openerFor: (items: number) => SealedBoxOpener | null,
  ): Promise<DrainResult> {
    const result: DrainResult = { records: 0, quarantined: 0, duplicates: 0 };
    // Leased: other vault workers on this queue take other pages meanwhile.
    const pull = (after: number, options: PullOptions | null = null) =>
      later(this.link.pull(db.fingerprint, after, this.options.batchSize, {
        leaseSeconds: LEASE_SECONDS,
        ...options,
      }));
    // Pipelined: while a page is processed, the next one is read and processed too (a
    // submission's versions still in order, see #settle), and acks are written.
    const chains = new Map<string, Promise<unknown>>();
    const pages: Promise<() => boolean>[] = [];
    let acking = later(Promise.resolve());
    let failed = false;
    let next = pull(0, first);
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
              this.options.observe?.(outcome, items[i]);
              if (outcome === "record") result.records += 1;
              else if (outcome === "quarantined") result.quarantined += 1;
              else result.duplicates += 1;
              if (!this.link.ackPart) acks.push(items[i].seq);
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
    db: VaultDatabase,
    items: QueueItem[],
    opener: SealedBoxOpener | null,
    chains: Map<string, Promise<unknown>>,
  ): Promise<(IngestOutcome | Error)[]> {
    return await Promise.all(items.map((item) => {
      const previous = chains.get(item.submissionId) ?? Promise.resolve();
      // A version whose predecessor failed waits for the next drain with it: applied alone it
      // would find no record to update.
      const done = previous.then((before) => {
        if (before instanceof Error) {
          throw new Error(`an earlier version failed (${before.message})`);
        }
        return this.ingestItem(db, item, opener);
      }).catch((err) => err as Error);
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
    db: VaultDatabase,
    item: QueueItem,
    opener: SealedBoxOpener | null = null,
  ): Promise<IngestOutcome> {
    const ackPart = this.link.ackPart;
    return this.#ingest(db, item, opener, ackPart && ackPart(db.fingerprint, item));
  }

  async #ingest(
    db: VaultDatabase,
    item: QueueItem,
    opener: SealedBoxOpener | null,
    ack: WritePart | null,
  ): Promise<IngestOutcome> {
    let ciphertext: Uint8Array = new Uint8Array(0);
    try {
      ciphertext = decodeQueued(item.ciphertext);
      const read = await this.#read(db, ciphertext, opener);
      // Claimed as soon as the envelope is readable: before its record commits (and, in role
      // all, its ack with it), and also when it goes to quarantine to wait for the owner's
      // retry; so neither a crash nor a long wait leaves its files to the orphan sweep.
      // Claims are idempotent: an envelope delivered again claims again. Only well-formed
      // hashes are claimed (a malformed one fails validation below); a relay failure here
      // stops the drain (the envelope stays queued), it is no fault of the envelope's.
      const owned = [...new Set(ownedFiles(read.values).map((f) => f.hash))];
      const claimant = recordClaimant(item.formId, item.submissionId);
      const missing = owned.length > 0
        ? await this.link.claim(db.relayUserId, owned, claimant)
        : [];
      checkMode(read, item.version);
      const payload = await this.#values.check(db, item.formId, read);
      checkFilesStored(ownedFiles(payload.values), new Set(missing), payload.formVersion);
      return await this.#records.apply(item, payload, ack);
    } catch (err) {
      if (!(err instanceof Quarantine)) throw err;
      await writeQuarantine(this.store.quarantine, db, item, ciphertext, err, ack);
      return "quarantined";
    }
  }

  /** Opens `ciphertext` and parses the payload (values not checked yet). */
  async #read(
    db: VaultDatabase,
    ciphertext: Uint8Array,
    opener: SealedBoxOpener | null,
  ): Promise<SubmissionPayload> {
    const pair = await this.keys.databaseKey(db.fingerprint);
    let plain: Uint8Array;
    try {
      plain = await (opener ?? { open })!.open(ciphertext, pair.publicKey, pair.secretKey);
    } catch (err) {
      // A box that does not open is the envelope's fault; a failing worker is not.
      if (!(err instanceof CryptoError)) throw err;
      throw new Quarantine("decryption_failed", err.message.slice(0, MAX_REASON), null);
    }
    return parsePayload(plain);
  }

  /**
   * Processes a quarantined envelope again (after the owner fixed the form). It becomes a
   * record and leaves quarantine, or stays with the new reason.
   */
  async retry(row: QuarantinedEnvelope): Promise<IngestOutcome> {
    const { db, item } = await quarantinedItem(this.store, row);
    // Acked when it was quarantined: nothing to ack now.
    return await this.#ingest(db, item, null, null);
  }
}

/** The bytes of a queued ciphertext; a `Quarantine` when the relay handed over no base64. */
function decodeQueued(ciphertext: string): Uint8Array {
  try {
    return Uint8Array.fromBase64(ciphertext);
  } catch {
    throw new Quarantine("invalid_payload", "The queued ciphertext is not base64", null);
  }
}
