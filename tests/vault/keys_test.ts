import assert from "node:assert/strict";
import { VaultKeyError, VaultKeys } from "../../src/vault/index.ts";
import { savedAtOf } from "../../src/vault/index.ts";

Deno.test("vault keys: 0600 files, reloaded; a passphrase seals them at rest", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const keys = new VaultKeys(dir, "correct horse");
    const db = await keys.createDatabaseKey();
    const fp = await keys.manifestFingerprint();
    const path = keys.paths.databaseKey(db.fingerprint);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const text = await Deno.readTextFile(path);
    assert.ok(!text.includes(db.secretKey.toBase64()), "the secret key is not in clear");
    const again = new VaultKeys(dir, "correct horse");
    assert.deepEqual((await again.databaseKey(db.fingerprint)).secretKey, db.secretKey);
    assert.equal(await again.manifestFingerprint(), fp);
    await assert.rejects(new VaultKeys(dir, "wrong").databaseKey(db.fingerprint), VaultKeyError);
    await assert.rejects(
      new VaultKeys(dir, null).databaseKey(db.fingerprint),
      /passphrase-protected; set SEALPOST_PASSPHRASE/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("_savedAt has seven fractional digits and a +00:00 offset", () => {
  assert.equal(
    savedAtOf(new Date("2025-01-31T12:00:00.123Z")),
    "2025-01-31T12:00:00.1230000+00:00",
  );
});
