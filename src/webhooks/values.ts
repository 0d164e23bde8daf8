/**
 * From a record event to what the renderers take: the metadata, and every field's value in
 * the body's JSON shape (Geo `"<lat>,<lng>"`, Image/Attachment a URL string, empty → null).
 *
 * This is the one impure step (owned files need a fresh pre-signed URL); the renderers in
 * `render/` are pure functions of its result.
 *
 * @module
 */
import type { OwnedFileRef } from "../forms/file_ref.ts";
import type { RecordEvent } from "../store/ports/record_events.ts";
import type { WebhookField } from "./forms.ts";

/** A field value as a webhook body carries it (default mode JSON shapes). */
export type WebhookValue = string | number | boolean | string[] | null;

/** The metadata keys every body starts with, in their order. */
export interface WebhookMeta {
  _recordId: string;
  _formId: string;
  /** `yyyy-MM-ddTHH:mm:ss.fffffff+00:00` */
  _savedAt: string;
  _reason: "insert" | "update" | "delete";
}

/** What every renderer takes. */
export interface RenderInput {
  meta: WebhookMeta;
  /** Field id to value, in form order; every field of the schema is present (unset is null). */
  values: Record<string, WebhookValue>;
}

/**
 * Returns a fresh read URL of an owned file (a pre-signed relay URL; for an encrypted file,
 * `encryption: "age"`, the vault's signed link that serves it decrypted), or null when the
 * blob is unknown. `lifetimeSeconds` is how long the URL must stay valid.
 */
export type BlobUrlResolver = (
  ref: OwnedFileRef,
  context: { formId: string; lifetimeSeconds: number },
) => Promise<string | null>;

/** How {@linkcode resolveValues} turns owned file references into URLs. */
export interface ResolveOptions {
  /** When absent, an owned reference keeps the URL stored in it. */
  blobUrl?: BlobUrlResolver;
  blobUrlLifetimeSeconds: number;
}

type Ref = { url?: unknown; dataUri?: unknown; hash?: unknown; owned?: unknown };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const isGeo = (v: Record<string, unknown>): boolean =>
  typeof v.lat === "number" && typeof v.lng === "number";

const isFileRef = (v: Record<string, unknown>): boolean =>
  typeof v.url === "string" || typeof v.dataUri === "string";

async function fileUrl(ref: Ref, formId: string, options: ResolveOptions): Promise<string | null> {
  if (ref.owned === true && typeof ref.hash === "string" && options.blobUrl) {
    return await options.blobUrl(ref as OwnedFileRef, {
      formId,
      lifetimeSeconds: options.blobUrlLifetimeSeconds,
    });
  }
  if (typeof ref.url === "string" && ref.url !== "") return ref.url;
  if (typeof ref.dataUri === "string" && ref.dataUri !== "") return ref.dataUri;
  return null;
}

async function resolveValue(
  kind: string | undefined,
  raw: unknown,
  formId: string,
  options: ResolveOptions,
): Promise<WebhookValue> {
  if (raw === null || raw === undefined) return null;
  if (typeof raw === "string") return raw === "" ? null : raw;
  if (typeof raw === "number") return Number.isFinite(raw) ? raw : null;
  if (typeof raw === "boolean") return raw;
  if (Array.isArray(raw)) {
    const items = raw.filter((x) => x !== null && x !== undefined).map(String);
    return items.length === 0 ? null : items;
  }
  if (isRecord(raw)) {
    if (kind === "geo" || (kind === undefined && isGeo(raw))) {
      return isGeo(raw) ? `${raw.lat},${raw.lng}` : null;
    }
    if (kind === "image" || kind === "attachment" || (kind === undefined && isFileRef(raw))) {
      return await fileUrl(raw, formId, options);
    }
  }
  return JSON.stringify(raw);
}

/**
 * Resolves the values of `event` for rendering: in the order of `fields` (when the schema is
 * known), fields missing from the record as null, then any other value the record holds.
 *
 * @example
 * ```ts
 * const input = await resolveValues(event, [{ id: "where", kind: "geo" }], {
 *   blobUrlLifetimeSeconds: 604800,
 * });
 * input.values.where; // "48.85,2.35"
 * ```
 */
export async function resolveValues(
  event: Pick<RecordEvent, "recordId" | "formId" | "savedAt" | "reason" | "values">,
  fields: WebhookField[] | null,
  options: ResolveOptions,
): Promise<RenderInput> {
  const kinds = new Map<string, string>((fields ?? []).map((f) => [f.id, f.kind]));
  const ids = [...kinds.keys(), ...Object.keys(event.values).filter((id) => !kinds.has(id))];
  const values: Record<string, WebhookValue> = {};
  for (const id of ids) {
    values[id] = await resolveValue(kinds.get(id), event.values[id], event.formId, options);
  }
  return {
    meta: {
      _recordId: event.recordId,
      _formId: event.formId,
      _savedAt: event.savedAt,
      _reason: event.reason,
    },
    values,
  };
}

/**
 * A timestamp in the `_savedAt` shape, `yyyy-MM-ddTHH:mm:ss.fffffff+00:00`.
 *
 * @example
 * ```ts
 * formatSavedAt(new Date(0)); // "1970-01-01T00:00:00.0000000+00:00"
 * ```
 */
export function formatSavedAt(date: Date): string {
  return date.toISOString().replace("Z", "0000+00:00");
}

/**
 * Epoch milliseconds of a `_savedAt` timestamp (0 when unreadable).
 *
 * @example
 * ```ts
 * savedAtMs("1970-01-01T00:00:01.0000000+00:00"); // 1000
 * ```
 */
export function savedAtMs(savedAt: string): number {
  const ms = Date.parse(`${savedAt.slice(0, 23)}Z`);
  return Number.isNaN(ms) ? 0 : ms;
}

function sampleValue(field: WebhookField, now: Date): unknown {
  switch (field.kind) {
    case "email":
      return "ada@example.com";
    case "url":
      return "https://example.com/";
    case "phone":
      return "+44 20 7946 0000";
    case "richText":
      return "<p>Sample <b>text</b></p>";
    case "number":
      return 42.5;
    case "boolean":
      return true;
    case "date":
      return now.toISOString().slice(0, 10);
    case "dateTime":
      return now.toISOString();
    case "choice": {
      const first = field.options?.[0] ?? "Option";
      return field.multiple ? [first] : first;
    }
    case "list":
      return ["alpha", "beta"];
    case "geo":
      return { lat: 51.5072, lng: -0.1276 };
    case "image":
      return { url: "https://example.com/sample.png", owned: false };
    case "attachment":
      return { url: "https://example.com/sample.pdf", owned: false };
    default:
      return "Sample text";
  }
}

/**
 * Plausible values for every field, for a test send.
 *
 * @example
 * ```ts
 * sampleValues([{ id: "age", kind: "number" }]); // { age: 42.5 }
 * ```
 */
export function sampleValues(fields: WebhookField[], now = new Date()): Record<string, unknown> {
  return Object.fromEntries(fields.map((f) => [f.id, sampleValue(f, now)]));
}
