/**
 * The form builder's HTML form, read into field definitions: field `i`'s settings are posted
 * as `f.<i>.<option>`; the builder's buttons (add, remove, move up) edit the list before it
 * is shown again or published. The result is checked by the same schema as the owner API.
 *
 * @module
 */
import { FIELD_KINDS, type FieldKind } from "../forms/fields.ts";
import type { FilesMode } from "../forms/manifest.ts";
import { field } from "./context.ts";

type Body = Record<string, string | string[]>;

/** A field as the builder holds it: plain data, checked only on publish. */
export type DraftField = Record<string, unknown> & { id: string; kind: FieldKind };

/** Which options each kind offers in the builder, besides id, label, description, required. */
export const KIND_OPTIONS: Record<FieldKind, string[]> = {
  text: ["minLength", "maxLength", "pattern"],
  email: ["maxLength"],
  url: ["maxLength"],
  phone: [],
  richText: ["minLength", "maxLength"],
  number: ["min", "max", "integer"],
  boolean: [],
  date: ["min", "max"],
  dateTime: ["min", "max"],
  choice: ["options", "multiple", "minItems", "maxItems"],
  list: ["minItems", "maxItems", "maxItemLength"],
  geo: [],
  image: ["accept", "maxSizeBytes"],
  attachment: ["accept", "maxSizeBytes"],
};

const NUMERIC = new Set([
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "maxItemLength",
  "maxSizeBytes",
]);
const FLAGS = new Set(["required", "integer", "multiple"]);

function isKind(kind: string): kind is FieldKind {
  return (FIELD_KINDS as readonly string[]).includes(kind);
}

/** Reads one option of field `i`; undefined when blank. */
function option(body: Body, i: number, name: string, kind: FieldKind): unknown {
  const raw = body[`f.${i}.${name}`];
  const text = Array.isArray(raw) ? raw[0] ?? "" : raw ?? "";
  if (FLAGS.has(name)) return text === "on" ? true : undefined;
  if (name === "options") {
    const items = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    return items.length ? items : undefined;
  }
  if (name === "accept") {
    const items = text.split(",").map((t) => t.trim()).filter(Boolean);
    return items.length ? items : undefined;
  }
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  const numeric = NUMERIC.has(name) || (kind === "number" && (name === "min" || name === "max"));
  if (numeric) {
    const n = Number(trimmed);
    return Number.isFinite(n) ? n : trimmed;
  }
  return name === "description" || name === "label" ? text : trimmed;
}

/**
 * The draft fields of a posted builder form, in order.
 *
 * @example
 * ```ts
 * readDraft({ "f.0.id": "name", "f.0.kind": "text", "f.0.label": "Name" });
 * // [{ id: "name", kind: "text", label: "Name" }]
 * ```
 */
export function readDraft(body: Body): DraftField[] {
  const indices = new Set<number>();
  for (const key of Object.keys(body)) {
    const m = /^f\.(\d{1,4})\.kind$/.exec(key);
    if (m) indices.add(Number(m[1]));
  }
  const out: DraftField[] = [];
  for (const i of [...indices].sort((a, b) => a - b)) {
    const kindText = field(body, `f.${i}.kind`);
    const kind: FieldKind = isKind(kindText) ? kindText : "text";
    const draft: DraftField = { id: field(body, `f.${i}.id`), kind };
    for (const name of ["label", "description", "required", ...KIND_OPTIONS[kind]]) {
      const value = option(body, i, name, kind);
      if (value !== undefined) draft[name] = value;
    }
    draft.label ??= "";
    out.push(draft);
  }
  return out;
}

/** A form's page settings the builder edits beside its fields (both signed into the manifest). */
export interface BuilderSettings {
  /** "Encrypt uploaded files": on is "encrypted", off is "plain" (the specification's flow). */
  files: FilesMode;
  /** "Let senders keep a draft on this device". */
  drafts: boolean;
}

/** A new form's settings: files encrypted, no drafts. */
export const NEW_FORM_SETTINGS: BuilderSettings = { files: "encrypted", drafts: false };

/**
 * The settings of a posted builder form (its two checkboxes; an unchecked box is not posted).
 *
 * @example
 * ```ts
 * readSettings({ encryptFiles: "on" }); // { files: "encrypted", drafts: false }
 * ```
 */
export function readSettings(body: Body): BuilderSettings {
  return {
    files: field(body, "encryptFiles") === "on" ? "encrypted" : "plain",
    drafts: field(body, "drafts") === "on",
  };
}

/** A builder button: what it asks for. */
export type BuilderAction =
  | { kind: "add"; fieldKind: FieldKind }
  | { kind: "remove" | "up"; index: number }
  | { kind: "preview" | "publish" };

/** The button a builder form was sent with. */
export function readAction(body: Body): BuilderAction {
  const action = field(body, "action");
  const m = /^(remove|up):(\d{1,4})$/.exec(action);
  if (m) return { kind: m[1] as "remove" | "up", index: Number(m[2]) };
  if (action === "add") {
    const kind = field(body, "newKind");
    return { kind: "add", fieldKind: isKind(kind) ? kind : "text" };
  }
  return { kind: action === "publish" ? "publish" : "preview" };
}

/** `fields` after an add, remove or move-up action (a new copy). */
export function applyAction(fields: DraftField[], action: BuilderAction): DraftField[] {
  const out = [...fields];
  if (action.kind === "add") {
    const taken = new Set(out.map((f) => f.id));
    let n = out.length + 1;
    while (taken.has(`field${n}`)) n++;
    const id = `field${n}`;
    const fresh: DraftField = { id, kind: action.fieldKind, label: `Field ${n}` };
    if (action.fieldKind === "choice") fresh.options = ["first", "second"];
    out.push(fresh);
  } else if (action.kind === "remove") {
    out.splice(action.index, 1);
  } else if (action.kind === "up" && action.index > 0 && action.index < out.length) {
    [out[action.index - 1], out[action.index]] = [out[action.index], out[action.index - 1]];
  }
  return out;
}
