/**
 * Writes a delivery's transition: the new state and its effects in one atomic operation, so
 * that a pending delivery always has the queue message (with `delay`) that will attempt it,
 * and an attempt's row, its delivery's state and its failure flag never disagree.
 *
 * @module
 */
import {
  type WebhookDeliveryRef,
  type WebhookDeliveryRow,
  webhookKeys as k,
  type WebhookPendingRow,
} from "../store/keys.ts";
import { partCount, writeParts } from "../store/parts.ts";
import type { QueueMessage } from "../store/queue.ts";
import type { KvWrite } from "../store/write.ts";
import { MAX_LOGGED_ATTEMPTS } from "./store.ts";
import type { DeliveryEffect } from "./transition.ts";

/** The queue message kind of delivery attempts. */
export const WEBHOOK_ATTEMPT_KIND = "webhook_attempt";

/**
 * Bodies up to this size live in the delivery's ref, beside its row (see
 * `WebhookDeliveryRef`); larger ones in parts.
 */
export const REF_BODY_BYTES = 16 * 1024;

/** The message of one attempt: only the attempt holding `token` may act on the delivery. */
export interface AttemptMessage extends QueueMessage {
  kind: typeof WEBHOOK_ATTEMPT_KIND;
  webhookId: string;
  deliveryId: string;
  token: string;
}

/** Parts a body of `bytes` bytes is stored in (0: in the ref). */
export function bodyPartsOf(bytes: number): number {
  return bytes <= REF_BODY_BYTES ? 0 : partCount(bytes);
}

/** A transition ready to commit: recorded into a write by `apply`. */
export interface DeliveryWrite {
  apply(w: KvWrite): void;
}

/**
 * The write of `state` with `effects`; with `body` (a new delivery, `null` when it keeps
 * none), also its ref and body parts.
 *
 * @example
 * ```ts
 * const w = new KvWrite();
 * deliveryWrite(state, effects).apply(w); // then commit w
 * ```
 */
export function deliveryWrite(
  state: WebhookDeliveryRow,
  effects: DeliveryEffect[],
  body?: Uint8Array | null,
): DeliveryWrite {
  return { apply: (w) => applyWrite(w, state, effects, body) };
}

function applyWrite(
  op: KvWrite,
  state: WebhookDeliveryRow,
  effects: DeliveryEffect[],
  body: Uint8Array | null | undefined,
): void {
  const id = state.id;
  op.set(k.delivery(state.webhookId, id), state);
  if (body !== undefined) {
    const ref: WebhookDeliveryRef = {
      webhookId: state.webhookId,
      body: state.bodyParts === 0 ? body : null,
    };
    op.set(k.deliveryWebhook(id), ref);
    if (state.bodyParts > 0) writeParts(op, k.bodyOf(id), body!);
  }
  for (const effect of effects) {
    switch (effect.kind) {
      case "log_attempt": {
        const n = effect.attempt.n;
        op.set(k.attempt(id, n), effect.attempt);
        if (n > MAX_LOGGED_ATTEMPTS) op.delete(k.attempt(id, n - MAX_LOGGED_ATTEMPTS));
        break;
      }
      case "schedule": {
        const pending: WebhookPendingRow = { webhookId: state.webhookId, dueAt: effect.dueAt };
        const message: AttemptMessage = {
          kind: WEBHOOK_ATTEMPT_KIND,
          webhookId: state.webhookId,
          deliveryId: id,
          token: state.token,
        };
        op.set(k.pending(id), pending)
          .enqueue(message, { delay: Math.max(0, effect.dueAt - Date.now()) });
        break;
      }
      case "unschedule":
        op.delete(k.pending(id));
        break;
      case "fail":
        op.set(k.failed(state.webhookId, id), true).set(k.flag(state.webhookId), effect.flag);
        break;
      case "clear_failure":
        op.delete(k.failed(state.webhookId, id)).delete(k.flag(state.webhookId));
        break;
    }
  }
}
