/**
 * The quarantine port on Deno KV: a row under `vaultKeys.quarantine` and its sealed box in
 * parts (src/store/kv/parts.ts) under `vaultKeys.quarantineDataOf`, written before the row.
 *
 * @module
 */
import { vaultKeys } from "./keys.ts";
import { deleteParts, readParts, writePartsInSteps } from "./parts.ts";
import { partCount } from "../ports/limits.ts";
import type { QuarantinedEnvelope, QuarantineEntry, QuarantinePort } from "../ports/quarantine.ts";
import { KvWrite } from "./write.ts";
import { addKvPart, kvPart } from "./write_part.ts";
import type { WritePart } from "../ports/write_part.ts";

/**
 * The Deno KV quarantine store.
 *
 * @example
 * ```ts
 * const quarantine = new KvQuarantine(kv);
 * await quarantine.save(entry, sealedBox, null);
 * ```
 */
export class KvQuarantine implements QuarantinePort {
  constructor(private kv: Deno.Kv) {}

  async save(entry: QuarantineEntry, ciphertext: Uint8Array, ack: WritePart | null) {
    const key = vaultKeys.quarantine(entry.id);
    const existing = await this.kv.get<QuarantinedEnvelope>(key);
    if (!existing.value) {
      // The box goes first, in writes of their own; the row that refers to it commits last.
      await writePartsInSteps(this.kv, vaultKeys.quarantineDataOf(entry.id), ciphertext);
    }
    const row: QuarantinedEnvelope = {
      ...entry,
      quarantinedAt: existing.value?.quarantinedAt ?? new Date().toISOString(),
      parts: existing.value?.parts ?? partCount(ciphertext.length),
    };
    const w = new KvWrite().set(key, row);
    if (ack) addKvPart(w, ack);
    await w.commit(this.kv);
  }

  async get(id: string): Promise<QuarantinedEnvelope | null> {
    return (await this.kv.get<QuarantinedEnvelope>(vaultKeys.quarantine(id))).value;
  }

  async list(): Promise<QuarantinedEnvelope[]> {
    return await Array.fromAsync(
      this.kv.list<QuarantinedEnvelope>({ prefix: vaultKeys.quarantineAll() }),
      (entry) => entry.value,
    );
  }

  async count(cap: number): Promise<number> {
    // Rows are small (the boxes are under another prefix): listing them up to `cap` is cheap.
    let n = 0;
    for await (const _ of this.kv.list({ prefix: vaultKeys.quarantineAll() }, { limit: cap })) n++;
    return n;
  }

  async ciphertext(id: string): Promise<Uint8Array | null> {
    return await readParts(this.kv, vaultKeys.quarantineDataOf(id));
  }

  removal(id: string, ciphertextBytes: number): WritePart {
    return kvPart((w) => {
      w.delete(vaultKeys.quarantine(id));
      deleteParts(w, vaultKeys.quarantineDataOf(id), partCount(ciphertextBytes));
    });
  }

  async discard(id: string, part: WritePart | null): Promise<boolean> {
    const entry = await this.kv.get<QuarantinedEnvelope>(vaultKeys.quarantine(id));
    if (!entry.value) return false;
    const w = new KvWrite().check(entry).delete(entry.key);
    deleteParts(w, vaultKeys.quarantineDataOf(id), entry.value.parts);
    if (part) addKvPart(w, part);
    return await w.commit(this.kv);
  }
}
