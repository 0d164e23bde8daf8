import assert from "node:assert/strict";
import { savedAtOf, VaultKeyError, VaultKeys } from "../../src/vault/index.ts";

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
      new VaultKeys(dir, null, noTerminal).databaseKey(db.fingerprint),
      /passphrase-protected; set SEALPOST_PASSPHRASE/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const noTerminal = {
  isTerminal: () => false,
  prompt: (): string | null => {
    throw new Error("must not prompt without a terminal");
  },
};

Deno.test("vault keys: without SEALPOST_PASSPHRASE, a terminal is asked once; else a clear error", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const keys = new VaultKeys(dir, "correct horse");
    const db = await keys.createDatabaseKey();
    const fp = await keys.manifestFingerprint();

    // Not a terminal: the clear error, no prompt.
    const piped = new VaultKeys(dir, null, noTerminal);
    await assert.rejects(piped.manifestKey(), (err: Error) => {
      assert.ok(err instanceof VaultKeyError);
      assert.match(err.message, /manifest\.key is passphrase-protected; set SEALPOST_PASSPHRASE/);
      return true;
    });

    // A terminal: asked once, the answer opens every sealed file.
    const asked: string[] = [];
    const answers = ["wrong", "correct horse"];
    const tty = new VaultKeys(dir, null, {
      isTerminal: () => true,
      prompt: (message) => {
        asked.push(message);
        return answers.shift() ?? null;
      },
    });
    await assert.rejects(tty.databaseKey(db.fingerprint), /Wrong passphrase/);
    assert.deepEqual((await tty.databaseKey(db.fingerprint)).secretKey, db.secretKey);
    assert.equal(await tty.manifestFingerprint(), fp);
    assert.deepEqual(
      asked,
      ["Vault passphrase:", "Vault passphrase:"],
      "a wrong one is asked again",
    );

    // Nothing entered: an error, not an empty passphrase.
    const empty = new VaultKeys(dir, null, { isTerminal: () => true, prompt: () => null });
    await assert.rejects(empty.databaseKey(db.fingerprint), /No passphrase entered/);
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
