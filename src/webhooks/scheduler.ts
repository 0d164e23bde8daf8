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
import type { QueueMessage } from "../store/queue.ts";
import { MAX_LOGGED_ATTEMPTS } from "./store.ts";
import type { DeliveryEffect } from "./transition.ts";

/** The queue message kind of delivery attempts. */
export const WEBHOOK_ATTEMPT_KIND = "webhook_attempt";

/** Bytes per body part, under Deno KV's 64 KiB value limit. */
export const BODY_PART_BYTES = 60 * 1024;

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

/** A transition ready to commit: its mutations, counted, and bytes, estimated. */
export interface DeliveryWrite {
  apply(op: Deno.AtomicOperation): void;
  mutations: number;
  bytes: number;
}

/** Parts a body of `bytes` bytes is stored in (0: in the ref). */
export function bodyPartsOf(bytes: number): number {
  return bytes <= REF_BODY_BYTES ? 0 : Math.ceil(bytes / BODY_PART_BYTES);
}

/**
 * The write of `state` with `effects`; with `body` (a new delivery, `null` when it keeps
 * none), also its ref and body parts.
 *
 * @example
 * ```ts
 * const write = deliveryWrite(state, effects);
 * write.apply(kv.atomic()); // then commit
 * ```
 */
export function deliveryWrite(
  state: WebhookDeliveryRow,
  effects: DeliveryEffect[],
  body?: Uint8Array | null,
): DeliveryWrite {
  let mutations = 1;
  let bytes = 512;
  if (body !== undefined) {
    mutations += 1 + state.bodyParts;
    bytes += body?.length ?? 0;
  }
  for (const effect of effects) {
    if (effect.kind === "log_attempt") {
      mutations += effect.attempt.n > MAX_LOGGED_ATTEMPTS ? 2 : 1;
      bytes += 512;
    } else if (effect.kind === "schedule") mutations += 2;
    else if (effect.kind === "unschedule") mutations += 1;
    else if (effect.kind === "fail" || effect.kind === "clear_failure") {
      mutations += 2;
      bytes += 1024;
    }
  }
  return { mutations, bytes, apply: (op) => applyWrite(op, state, effects, body) };
}

function applyWrite(
  op: Deno.AtomicOperation,
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
    for (let i = 0; i < state.bodyParts; i++) {
      op.set(k.body(id, i), body!.subarray(i * BODY_PART_BYTES, (i + 1) * BODY_PART_BYTES));
    }
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
