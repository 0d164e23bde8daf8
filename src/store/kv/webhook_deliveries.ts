/**
 * Webhook deliveries, their attempts and their schedule in Deno KV (layout: `webhookKeys` in
 * `src/store/kv/keys.ts`), behind the {@linkcode WebhookDeliveries} port.
 *
 * A delivery is its row (rewritten by each step, kept small), its ref (its configuration, and
 * its body up to 16 KiB; larger bodies in parts), one row per attempt, a pending marker while
 * an attempt is scheduled and a failure listing. A schedule is the pending marker and a Deno KV
 * queue message with `delay` carrying the delivery's token, written in the same atomic
 * operation as the state that expects it. Writes go through a group committer: concurrent
 * deliveries share commits, and one whose check fails fails alone.
 *
 * @module
 */
import { GroupCommitter } from "./group_commit.ts";
import {
  type DeliveryChange,
  type DeliveryPage,
  type DeliveryRevision,
  type DueDelivery,
  InvalidCursorError,
  MAX_LOGGED_ATTEMPTS,
  type ScheduledAttempt,
  type StoredDelivery,
  type WebhookAttempt,
  type WebhookDeliveries,
  type WebhookDelivery,
} from "../ports/webhooks.ts";
import { webhookKeys as k } from "./keys.ts";
import { deleteParts, readParts, writeParts } from "./parts.ts";
import { partCount } from "../ports/limits.ts";
import type { QueueDispatcher, QueueMessage } from "./queue.ts";
import { KvWrite } from "./write.ts";
import { addKvPart } from "./write_part.ts";
import type { WritePart } from "../ports/write_part.ts";

/**
 * The value of a `webhookKeys.deliveryWebhook` entry: the delivery's configuration, and its
 * body unless that is in parts. The body sits here, not in the delivery row, so that neither
 * entry outgrows what SQLite keeps in a B-tree page (about 1 KB with the key; more takes an
 * overflow page per write), and the row, rewritten by every attempt, stays small.
 */
export interface WebhookDeliveryRef {
  webhookId: string;
  /** The body, up to 16 KiB (else null, and parts). */
  body: Uint8Array | null;
}

/** The value of a `webhookKeys.pending` entry. */
export interface WebhookPendingRow {
  webhookId: string;
  /** Epoch milliseconds. */
  dueAt: number;
}

/** The queue message kind of delivery attempts. */
export const WEBHOOK_ATTEMPT_KIND = "webhook_attempt";

/** Bodies up to this size live in the delivery's ref, beside its row; larger ones in parts. */
const REF_BODY_BYTES = 16 * 1024;

/** Deno KV's `getMany` reads at most 10 keys. */
const GET_MANY = 10;

/** Mutations per purge operation, under Deno KV's 1000. */
const PURGE_MUTATIONS = 800;

/** The queue message of a scheduled attempt. */
type AttemptMessage = QueueMessage & ScheduledAttempt;

const message = (a: ScheduledAttempt): AttemptMessage => ({
  kind: WEBHOOK_ATTEMPT_KIND,
  webhookId: a.webhookId,
  deliveryId: a.deliveryId,
  token: a.token,
});

/** An entry read as a stored delivery (its versionstamp as the revision), or null. */
function stored(entry: Deno.KvEntryMaybe<WebhookDelivery>): StoredDelivery | null {
  if (entry.value === null) return null;
  return { row: entry.value, revision: entry.versionstamp as DeliveryRevision };
}

/**
 * Deliveries in Deno KV; `queue` is the process's queue listener the schedule comes due on.
 *
 * @example
 * ```ts
 * const deliveries = new KvWebhookDeliveries(kv, queue);
 * deliveries.onDue(async (attempt) => await attemptNow(attempt));
 * ```
 */
export class KvWebhookDeliveries implements WebhookDeliveries {
  /**
   * One commit in flight: the deliveries that finish meanwhile wait for the next and share it
   * (fewer, larger commits cost less CPU per delivery than two smaller ones in flight).
   */
  #committer: GroupCommitter;

  constructor(private kv: Deno.Kv, private queue: QueueDispatcher) {
    this.#committer = new GroupCommitter(kv);
  }

  async delivery(deliveryId: string): Promise<StoredDelivery | null> {
    const ref = await this.#ref(deliveryId);
    if (ref === null) return null;
    return stored(await this.kv.get<WebhookDelivery>(k.delivery(ref.webhookId, deliveryId)));
  }

  async due(attempt: ScheduledAttempt): Promise<DueDelivery | null> {
    const [entry, ref] = await this.kv.getMany<[WebhookDelivery, WebhookDeliveryRef]>([
      k.delivery(attempt.webhookId, attempt.deliveryId),
      k.deliveryWebhook(attempt.deliveryId),
    ]);
    const found = stored(entry);
    if (found?.row.status !== "pending" || found.row.token !== attempt.token) return null;
    const body = found.row.bodyParts > 0 ? await this.body(found.row) : ref.value?.body;
    return { ...found, body: body ?? new Uint8Array() };
  }

  async deliveries(
    webhookId: string,
    options: { failed?: boolean; cursor?: string; limit: number },
  ): Promise<DeliveryPage> {
    const list = this.kv.list<WebhookDelivery | true>(
      { prefix: options.failed ? k.failedOf(webhookId) : k.deliveriesOf(webhookId) },
      { reverse: true, limit: options.limit, cursor: options.cursor },
    );
    const found: Deno.KvEntry<WebhookDelivery | true>[] = [];
    try {
      for await (const entry of list) found.push(entry);
    } catch (err) {
      if (!(err instanceof TypeError) || !/cursor/i.test(err.message)) throw err;
      throw new InvalidCursorError();
    }
    const nextCursor = found.length === options.limit ? list.cursor : null;
    if (!options.failed) {
      return { items: found.map((e) => e.value as WebhookDelivery), nextCursor };
    }
    const items: WebhookDelivery[] = [];
    for (let i = 0; i < found.length; i += GET_MANY) {
      const keys = found.slice(i, i + GET_MANY).map((e) =>
        k.delivery(webhookId, e.key[e.key.length - 1] as string)
      );
      for (const entry of await this.kv.getMany<WebhookDelivery[]>(keys)) {
        if (entry.value) items.push(entry.value);
      }
    }
    return { items, nextCursor };
  }

  async failedIds(webhookId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const entry of this.kv.list({ prefix: k.failedOf(webhookId) })) {
      ids.push(entry.key[entry.key.length - 1] as string);
    }
    return ids;
  }

  async body(row: WebhookDelivery): Promise<Uint8Array> {
    if (row.bodyParts > 0) {
      const body = await readParts(this.kv, k.bodyOf(row.id));
      if (!body) throw new Error(`The body of delivery ${row.id} is missing`);
      return body;
    }
    const ref = await this.#ref(row.id);
    if (!ref) throw new Error(`The ref of delivery ${row.id} is missing`);
    return ref.body ?? new Uint8Array();
  }

  async attempts(deliveryId: string): Promise<WebhookAttempt[]> {
    const rows: WebhookAttempt[] = [];
    for await (
      const entry of this.kv.list<WebhookAttempt>({ prefix: k.attemptsOf(deliveryId) })
    ) rows.push(entry.value);
    return rows;
  }

  async createDelivery(
    change: DeliveryChange,
    body: Uint8Array | null,
    also?: WritePart,
  ): Promise<boolean> {
    const id = change.state.id;
    const inParts = body !== null && body.length > REF_BODY_BYTES;
    const bodyParts = inParts ? partCount(body.length) : 0;
    const state = change.state.bodyParts === bodyParts
      ? change.state
      : { ...change.state, bodyParts };
    const ref: WebhookDeliveryRef = { webhookId: state.webhookId, body: inParts ? null : body };
    const { ok } = await this.#committer.commit({
      lock: id,
      build: (w) => {
        w.check({ key: k.delivery(state.webhookId, id), versionstamp: null });
        w.set(k.deliveryWebhook(id), ref);
        if (inParts) writeParts(w, k.bodyOf(id), body);
        writeChange(w, state === change.state ? change : { ...change, state });
        if (also) addKvPart(w, also);
      },
    });
    return ok;
  }

  async updateDelivery(before: StoredDelivery, change: DeliveryChange): Promise<boolean> {
    const { row } = before;
    const { ok } = await this.#committer.commit({
      lock: row.id,
      build: (w) => {
        w.check({ key: k.delivery(row.webhookId, row.id), versionstamp: before.revision });
        writeChange(w, change);
      },
    });
    return ok;
  }

  async purgeDelivery(before: StoredDelivery): Promise<boolean> {
    const { row } = before;
    const w = new KvWrite().check({
      key: k.delivery(row.webhookId, row.id),
      versionstamp: before.revision,
    });
    deleteDelivery(w, row);
    return await w.commit(this.kv);
  }

  /** Deletes every delivery of `webhookId` (a removed configuration), in batches. */
  async purgeAllOf(webhookId: string): Promise<void> {
    let w = new KvWrite();
    for await (
      const entry of this.kv.list<WebhookDelivery>({ prefix: k.deliveriesOf(webhookId) })
    ) {
      if (w.mutations > PURGE_MUTATIONS) {
        await w.commit(this.kv);
        w = new KvWrite();
      }
      deleteDelivery(w, entry.value);
    }
    await w.commit(this.kv);
  }

  async *overdue(dueBefore: number): AsyncIterable<StoredDelivery> {
    let late: Deno.KvEntry<WebhookPendingRow>[] = [];
    for await (const entry of this.kv.list<WebhookPendingRow>({ prefix: k.pendingAll() })) {
      if (entry.value.dueAt >= dueBefore) continue;
      late.push(entry);
      if (late.length < GET_MANY) continue;
      yield* this.#pendingOf(late);
      late = [];
    }
    yield* this.#pendingOf(late);
  }

  /** The deliveries of pending markers `markers` still pending; the other markers go. */
  async *#pendingOf(markers: Deno.KvEntry<WebhookPendingRow>[]): AsyncIterable<StoredDelivery> {
    if (markers.length === 0) return;
    const rows = await this.kv.getMany<WebhookDelivery[]>(
      markers.map((m) => k.delivery(m.value.webhookId, m.key[m.key.length - 1] as string)),
    );
    for (const [i, entry] of rows.entries()) {
      const found = stored(entry);
      if (found?.row.status === "pending") yield found;
      else await new KvWrite().check(markers[i]).delete(markers[i].key).commit(this.kv);
    }
  }

  async countByState(cap: number): Promise<{ pending: number; failed: number }> {
    const count = async (prefix: Deno.KvKey) => {
      let n = 0;
      for await (const _ of this.kv.list({ prefix }, { limit: cap })) n++;
      return n;
    };
    return { pending: await count(k.pendingAll()), failed: await count(k.failedAll()) };
  }

  onDue(handler: (attempt: ScheduledAttempt) => Promise<void>): void {
    this.queue.on(WEBHOOK_ATTEMPT_KIND, (m) => {
      const { webhookId, deliveryId, token } = m as AttemptMessage;
      return handler({ webhookId, deliveryId, token });
    });
  }

  async redeliver(attempt: ScheduledAttempt, delayMs: number): Promise<void> {
    try {
      await this.kv.enqueue(message(attempt), { delay: delayMs });
    } catch (err) {
      // Closed already: the message cannot be acknowledged either, so it stays queued and
      // comes again after the restart.
      const closed = err instanceof Deno.errors.BadResource ||
        (err instanceof Error && /database is closed/i.test(err.message));
      if (!closed) throw err;
    }
  }

  idle(): Promise<void> {
    return this.#committer.idle();
  }

  /** The ref of delivery `deliveryId`, or null. */
  async #ref(deliveryId: string): Promise<WebhookDeliveryRef | null> {
    return (await this.kv.get<WebhookDeliveryRef>(k.deliveryWebhook(deliveryId))).value;
  }
}

/** Adds the writes of `change` to `w`: the row, and what goes with it. */
function writeChange(w: KvWrite, change: DeliveryChange): void {
  const { state, attempt, schedule, failure } = change;
  const id = state.id;
  w.set(k.delivery(state.webhookId, id), state);
  if (attempt) {
    w.set(k.attempt(id, attempt.n), attempt);
    if (attempt.n > MAX_LOGGED_ATTEMPTS) w.delete(k.attempt(id, attempt.n - MAX_LOGGED_ATTEMPTS));
  }
  if (schedule === null) w.delete(k.pending(id));
  else if (schedule) {
    const pending: WebhookPendingRow = { webhookId: state.webhookId, dueAt: schedule.dueAt };
    w.set(k.pending(id), pending).enqueue(
      message({ webhookId: state.webhookId, deliveryId: id, token: state.token }),
      {
        delay: Math.max(0, schedule.dueAt - Date.now()),
      },
    );
  }
  if (failure === "clear") w.delete(k.failed(state.webhookId, id)).delete(k.flag(state.webhookId));
  else if (failure) {
    w.set(k.failed(state.webhookId, id), true).set(k.flag(state.webhookId), failure.flag);
  }
}

/** Adds the deletion of delivery `row` and everything it owns to `w`. */
function deleteDelivery(w: KvWrite, row: WebhookDelivery): void {
  const id = row.id;
  w.delete(k.delivery(row.webhookId, id))
    .delete(k.deliveryWebhook(id))
    .delete(k.failed(row.webhookId, id))
    .delete(k.pending(id));
  deleteParts(w, k.bodyOf(id), row.bodyParts);
  for (let n = Math.max(1, row.attempts - MAX_LOGGED_ATTEMPTS + 1); n <= row.attempts; n++) {
    w.delete(k.attempt(id, n));
  }
}
