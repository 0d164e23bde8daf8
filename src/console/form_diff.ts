/**
 * What changed between two schema versions of a form, for the version history.
 *
 * @module
 */

/** One line of a version's changes. */
export interface Change {
  kind: "title" | "added" | "removed" | "changed" | "moved";
  text: string;
}

type Version = { title: string; fields: Record<string, unknown>[] };

function show(value: unknown): string {
  return value === undefined ? "unset" : JSON.stringify(value);
}

/**
 * The changes from `before` to `after` (null `before`: the first version, every field added).
 *
 * @example
 * ```ts
 * diffVersions({ title: "A", fields: [] }, { title: "B", fields: [] });
 * // [{ kind: "title", text: 'Title "A" → "B"' }]
 * ```
 */
export function diffVersions(before: Version | null, after: Version): Change[] {
  const out: Change[] = [];
  if (before && before.title !== after.title) {
    out.push({ kind: "title", text: `Title "${before.title}" → "${after.title}"` });
  }
  const old = new Map((before?.fields ?? []).map((f) => [String(f.id), f]));
  const now = new Map(after.fields.map((f) => [String(f.id), f]));
  for (const [id, f] of now) {
    const prev = old.get(id);
    if (!prev) {
      out.push({ kind: "added", text: `Added field "${id}" (${f.kind})` });
      continue;
    }
    const keys = new Set([...Object.keys(prev), ...Object.keys(f)]);
    const changed = [...keys].filter((k) => JSON.stringify(prev[k]) !== JSON.stringify(f[k]));
    if (changed.length) {
      out.push({
        kind: "changed",
        text: `Field "${id}": ` +
          changed.map((k) => `${k} ${show(prev[k])} → ${show(f[k])}`).join(", "),
      });
    }
  }
  for (const id of old.keys()) {
    if (!now.has(id)) out.push({ kind: "removed", text: `Removed field "${id}"` });
  }
  const oldOrder = [...old.keys()].filter((id) => now.has(id));
  const newOrder = [...now.keys()].filter((id) => old.has(id));
  if (oldOrder.join("\u0000") !== newOrder.join("\u0000")) {
    out.push({ kind: "moved", text: `Field order: ${newOrder.join(", ")}` });
  }
  return out;
}
