import assert from "node:assert/strict";
import { join } from "node:path";
import { ageRecipient } from "../../src/crypto/age.ts";
import { encryptFile } from "../../src/crypto/age_encrypt.ts";
import { sealpost } from "../_support/cli.ts";
import { startInstance } from "../_support/server.ts";
import { AGE } from "../_support/tools.ts";
import { vaultForm } from "../_support/vault.ts";

Deno.test("key export-age: a database's key as an age identity that the age CLI decrypts with", async () => {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir();
  try {
    const { db } = await vaultForm(inst, "Tips", [{ id: "name", label: "Name", kind: "text" }]);
    const out = join(dir, "identity.txt");
    const data = ["--data", inst.config.data_dir];
    const done = await sealpost([
      "key",
      "export-age",
      db.fingerprint,
      "--out",
      out,
      ...data,
      "--json",
    ]);
    assert.equal(done.code, 0, done.stderr);
    assert.equal((await Deno.stat(out)).mode! & 0o777, 0o600);
    assert.match(await Deno.readTextFile(out), /^AGE-SECRET-KEY-1[0-9A-Z]{58}\n$/);
    const publicKey = Uint8Array.fromBase64(db.publicKey);
    assert.equal(JSON.parse(done.stdout).recipient, ageRecipient(publicKey));

    // What a sender encrypted to the database's key opens with the exported identity.
    const plain = new TextEncoder().encode("EXPORT-MARKER ".repeat(100));
    const sealed = join(dir, "file.age");
    await Deno.writeFile(sealed, encryptFile(plain, publicKey));
    const opened = await new Deno.Command(AGE, { args: ["-d", "-i", out, sealed] }).output();
    assert.ok(opened.success, new TextDecoder().decode(opened.stderr));
    assert.deepEqual(opened.stdout.subarray(0, plain.length), plain, "padding follows the bytes");

    // Never over an existing file; an unknown key and bad usage say so.
    const again = await sealpost(["key", "export-age", db.fingerprint, "--out", out, ...data]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /exists already/);
    const unknown = await sealpost([
      "key",
      "export-age",
      "ab".repeat(32),
      "--out",
      join(dir, "x"),
      ...data,
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No private key/);
    assert.equal((await sealpost(["key", "export-age", db.fingerprint, ...data])).code, 2);
    assert.equal((await sealpost(["key", "list", "--out", join(dir, "y"), ...data])).code, 2);
  } finally {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
  }
});
