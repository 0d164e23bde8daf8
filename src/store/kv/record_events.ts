/**
 * The record events outbox in Deno KV (`keys.recordEvent`: an event's JSON in parts), behind
 * the {@linkcode RecordEventOutbox} port, and the write of an event with its record change.
 * Announcements come from the store's {@linkcode RecordEventAnnouncer}; removals on their own
 * are group-committed.
 *
 * @module
 */
import { GroupCommitter } from "./group_commit.ts";
import { keys } from "./keys.ts";
import { deleteParts, parseJsonParts, writeJsonParts } from "./parts.ts";
import {
  type OutboxScan,
  type RecordEvent,
  RecordEventAnnouncer,
  type RecordEventOutbox,
  type StoredRecordEvent,
} from "../ports/record_events.ts";
import type { KvWrite } from "./write.ts";
import { kvPart } from "./write_part.ts";
import type { WritePart } from "../ports/write_part.ts";

/**
 * Adds `event` to `w` as an outbox row (its JSON in parts). The caller commits `w` with the
 * record change itself, then announces the result.
 *
 * @example
 * ```ts
 * const stored = emitRecordEvent(w, event);
 * if (await w.commit(kv)) announcer.announce([stored]);
 * ```
 */
export function emitRecordEvent(w: KvWrite, event: RecordEvent): StoredRecordEvent {
  return { event, parts: writeJsonParts(w, keys.recordEvent(event.eventId), event) };
}

/**
 * The consumer's side of the outbox in Deno KV.
 *
 * @example
 * ```ts
 * const outbox = new KvRecordEventOutbox(kv);
 * const { events } = await outbox.scan({ skip: () => false, limit: 100 });
 * ```
 */
export class KvRecordEventOutbox implements RecordEventOutbox {
  #committer: GroupCommitter;

  /** `announcer`: the one the store's records port announces on. */
  constructor(private kv: Deno.Kv, private announcer = new RecordEventAnnouncer()) {
    this.#committer = new GroupCommitter(kv, undefined, 2);
  }

  onAnnounced(listener: (events: StoredRecordEvent[]) => void): () => void {
    return this.announcer.listen(listener);
  }

  async scan(options: { skip(eventId: string): boolean; limit: number }): Promise<OutboxScan> {
    const groups = new Map<string, Uint8Array[]>();
    let more = false;
    for await (const entry of this.kv.list<Uint8Array>({ prefix: keys.recordEventsAll() })) {
      const id = entry.key[1] as string;
      const parts = groups.get(id);
      if (parts) parts.push(entry.value);
      else if (options.skip(id)) continue;
      else if (groups.size >= options.limit) {
        more = true;
        break;
      } else groups.set(id, [entry.value]);
    }
    const events: StoredRecordEvent[] = [];
    for (const parts of groups.values()) {
      events.push({ event: parseJsonParts<RecordEvent>(parts), parts: parts.length });
    }
    return { events, more };
  }

  removal(stored: StoredRecordEvent): WritePart {
    return kvPart((w) => deleteParts(w, keys.recordEvent(stored.event.eventId), stored.parts));
  }

  async remove(stored: StoredRecordEvent): Promise<void> {
    const { eventId } = stored.event;
    await this.#committer.commit({
      lock: eventId,
      build: (w) => deleteParts(w, keys.recordEvent(eventId), stored.parts),
    });
  }
}
