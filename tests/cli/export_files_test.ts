import assert from "node:assert/strict";
import { safeFileName } from "../../src/cli/export_files.ts";

Deno.test("safeFileName: no paths, no control characters, never empty", () => {
  assert.equal(safeFileName("../../etc/passwd"), "passwd");
  assert.equal(safeFileName("a\\b\\..\\c.txt"), "c.txt");
  assert.equal(safeFileName("x\ny.txt"), "x_y.txt");
  assert.equal(safeFileName(".."), "file");
  assert.equal(safeFileName(undefined), "file");
});
