/**
 * Hashing a file for the upload: chunked, reporting progress, and yielding to the event loop
 * between chunks so a page never freezes (the path a page outside a secure context takes;
 * Deno has no `isSecureContext`, so it takes it here too).
 */
import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "../../src/crypto/encoding.ts";
import { formatSize, hashFile } from "../../src/web/client/file_picker.ts";

Deno.test("hashFile hashes in chunks, reports progress and lets other work run", async () => {
  const data = new Uint8Array(9 * 1024 * 1024 + 123).map((_, i) => (i * 31) & 255);
  const progress: number[] = [];
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    const hash = await hashFile(new Blob([data]), (p) => progress.push(p));
    assert.equal(hash, toHex(sha256(data)));
  } finally {
    clearInterval(timer);
  }
  assert.ok(progress.length >= 3, `progress ${progress}`);
  assert.deepEqual([...progress].sort((a, b) => a - b), progress, "progress only grows");
  assert.equal(progress.at(-1), 1);
  assert.ok(ticks >= 2, "timers ran while hashing");
  assert.equal(await hashFile(new Blob([]), () => {}), toHex(sha256(new Uint8Array())));
});

Deno.test("formatSize", () => {
  assert.equal(formatSize(300), "300 B");
  assert.equal(formatSize(12_345), "12 KB");
  assert.equal(formatSize(5 * 1024 * 1024), "5.2 MB");
});
