import assert from "node:assert/strict";
import { FormVersionCache } from "../../../src/store/ports/form_version_cache.ts";

const version = (formId: string, schemaVersion: number) => ({
  formId,
  schemaVersion,
  title: "T",
  fields: [],
  createdAt: "2025-01-01T00:00:00.000Z",
});

Deno.test("form version cache: keeps what it is given, 10,000 at most, the oldest going first", () => {
  const cache = new FormVersionCache();
  assert.equal(cache.keep(null), null);
  assert.equal(cache.get("f0", 1), undefined);
  for (let i = 0; i < 10_000; i++) cache.keep(version(`f${i}`, 1));
  assert.deepEqual(cache.get("f0", 1), version("f0", 1));
  assert.equal(cache.get("f0", 2), undefined, "by form and version");
  cache.keep(version("new", 1));
  assert.equal(cache.get("f0", 1), undefined);
  assert.deepEqual(cache.get("f1", 1), version("f1", 1));
  assert.deepEqual(cache.get("new", 1), version("new", 1));
});
