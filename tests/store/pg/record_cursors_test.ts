import assert from "node:assert/strict";
import { InvalidCursorError } from "../../../src/store/ports/records.ts";
import { decodeCursor, encodeCursor } from "../../../src/store/pg/record_cursors.ts";

Deno.test("pg record cursors: URL-safe, read back by their own list only", async () => {
  const list = ["records", "f1"];
  const cursor = await encodeCursor(list, ["r/é 9"]);
  assert.match(cursor, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(await decodeCursor(list, cursor), ["r/é 9"]);
  for (
    const [other, bad] of [
      [["records", "f2"], cursor],
      [list, cursor + "x"],
      [list, cursor.slice(0, -2)],
      [list, "A" + cursor.slice(1)],
      [list, "-"],
      [list, "a+b="],
      [list, ""],
    ] as const
  ) {
    await assert.rejects(decodeCursor(other, bad), InvalidCursorError, `${other} ${bad}`);
  }
});
