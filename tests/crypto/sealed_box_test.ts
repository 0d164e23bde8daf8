/**
 * One sealed-box suite run across four implementations: ours on WebCrypto X25519, ours on pure
 * @noble X25519, libsodium-wrappers (WebAssembly) and python3-nacl (native libsodium). Every
 * pair in which one side is ours seals and opens, from 0 B to 4 MiB.
 */
import assert from "node:assert/strict";
import sodium from "libsodium-wrappers";
import { fromHex } from "../../src/crypto/encoding.ts";
import { CryptoError } from "../../src/crypto/errors.ts";
import { generateKeyPair, type KeyPair } from "../../src/crypto/keys.ts";
import {
  open,
  seal,
  SEAL_OVERHEAD,
  type X25519Impl,
  x25519Impl,
} from "../../src/crypto/sealed_box.ts";
import { Nacl } from "../_support/nacl.ts";

interface Impl {
  name: string;
  ours: boolean;
  keyPair(): Promise<KeyPair>;
  seal(message: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array>;
  open(sealed: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array>;
}

const ours = (x25519: X25519Impl): Impl => ({
  name: `sealpost/${x25519}`,
  ours: true,
  keyPair: () => Promise.resolve(generateKeyPair()),
  seal: (m, pk) => seal(m, pk, { x25519 }),
  open: (c, pk, sk) => open(c, pk, sk, { x25519 }),
});

const libsodiumWrappers: Impl = {
  name: "libsodium-wrappers",
  ours: false,
  keyPair: () => {
    const { publicKey, privateKey } = sodium.crypto_box_keypair();
    return Promise.resolve({ publicKey, secretKey: privateKey });
  },
  seal: (m, pk) => Promise.resolve(sodium.crypto_box_seal(m, pk)),
  open: (c, pk, sk) => Promise.resolve(sodium.crypto_box_seal_open(c, pk, sk)),
};

const SIZES = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000, 1024, 65_536, 1 << 20, 4 << 20];

function message(size: number): Uint8Array {
  const m = new Uint8Array(size);
  for (let i = 0; i < size; i++) m[i] = (i * 131 + (i >> 8) * 7 + 5) & 255;
  return m;
}

async function rejects(promise: Promise<unknown>, code: CryptoError["code"]): Promise<void> {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof CryptoError, `expected a CryptoError, got ${e}`);
    assert.equal(e.code, code, e.message);
    return true;
  });
}

Deno.test("sealed box interop across implementations, 0 B to 4 MiB", async (t) => {
  await sodium.ready;
  const nacl = new Nacl();
  const python: Impl = {
    name: "python3-nacl",
    ours: false,
    keyPair: () => nacl.keyPair(),
    seal: (m, pk) => nacl.seal(m, pk),
    open: (c, pk, sk) => nacl.open(c, pk, sk),
  };
  const impls = [ours("webcrypto"), ours("noble"), libsodiumWrappers, python];
  try {
    for (const sealer of impls) {
      for (const opener of impls) {
        if (!sealer.ours && !opener.ours) continue;
        await t.step(`${sealer.name} seals, ${opener.name} opens`, async () => {
          const keys = await opener.keyPair();
          for (const size of SIZES) {
            const m = message(size);
            const sealed = await sealer.seal(m, keys.publicKey);
            assert.equal(sealed.length, size + SEAL_OVERHEAD, `size ${size}`);
            const opened = await opener.open(sealed, keys.publicKey, keys.secretKey);
            assert.equal(opened.length, size);
            assert.deepEqual(opened, m, `size ${size}`);
          }
        });
      }
    }
  } finally {
    await nacl.close();
  }
});

Deno.test("a libsodium known answer opens with both X25519 implementations", async () => {
  // Made once with python3-nacl: crypto_box_seal(b"Sealpost known answer", pk).
  const secretKey = fromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const publicKey = fromHex("8f40c5adb68f25624ae5b214ea767a6ec94d829d3d7b5e1ad1ba6f3e2138285f");
  const sealed = fromHex(
    "7df3971b5c59a79600dc26976c4024ef825768d2f2f773c347cfa2887d81e46a9f2fc14ec93a1a12cbc7fc5e" +
      "4ead94ca7f0257de29574559a1e6e3fbdda30823aac978996d",
  );
  for (const x25519 of ["webcrypto", "noble"] as const) {
    const opened = await open(sealed, publicKey, secretKey, { x25519 });
    assert.equal(new TextDecoder().decode(opened), "Sealpost known answer");
  }
});

Deno.test("SEAL_OVERHEAD is libsodium's crypto_box_SEALBYTES", async () => {
  await sodium.ready;
  assert.equal(SEAL_OVERHEAD, sodium.crypto_box_SEALBYTES);
});

Deno.test("Deno's WebCrypto X25519 is detected and used", async () => {
  assert.equal(await x25519Impl(), "webcrypto");
});

for (const x25519 of ["webcrypto", "noble"] as const) {
  Deno.test(`sealed box failures are clean CryptoErrors (${x25519})`, async (t) => {
    const keys = generateKeyPair();
    const m = message(10);
    const sealed = await seal(m, keys.publicKey, { x25519 });

    await t.step("wrong secret key", async () => {
      const other = generateKeyPair();
      await rejects(open(sealed, keys.publicKey, other.secretKey, { x25519 }), "decryption_failed");
    });
    await t.step("wrong public key (it feeds the nonce)", async () => {
      const other = generateKeyPair();
      await rejects(open(sealed, other.publicKey, keys.secretKey, { x25519 }), "decryption_failed");
    });
    await t.step("every truncation", async () => {
      for (let n = 0; n < sealed.length; n++) {
        await rejects(
          open(sealed.subarray(0, n), keys.publicKey, keys.secretKey, { x25519 }),
          "decryption_failed",
        );
      }
    });
    await t.step("a flipped bit in every byte", async () => {
      for (let i = 0; i < sealed.length; i++) {
        for (const bit of [0x01, 0x80]) {
          const bad = sealed.slice();
          bad[i] ^= bit;
          await rejects(open(bad, keys.publicKey, keys.secretKey, { x25519 }), "decryption_failed");
        }
      }
    });
    await t.step("an appended byte", async () => {
      const longer = new Uint8Array(sealed.length + 1);
      longer.set(sealed);
      await rejects(open(longer, keys.publicKey, keys.secretKey, { x25519 }), "decryption_failed");
    });
    await t.step("keys of the wrong length or type", async () => {
      for (const bad of [new Uint8Array(0), new Uint8Array(31), new Uint8Array(33)]) {
        await rejects(seal(m, bad, { x25519 }), "invalid_key");
        await rejects(open(sealed, bad, keys.secretKey, { x25519 }), "invalid_key");
        await rejects(open(sealed, keys.publicKey, bad, { x25519 }), "invalid_key");
      }
      await rejects(seal(m, "key" as unknown as Uint8Array, { x25519 }), "invalid_key");
      await rejects(
        seal("hi" as unknown as Uint8Array, keys.publicKey, { x25519 }),
        "invalid_input",
      );
    });
    await t.step("low-order points", async () => {
      // u = 0 and u = 1 give an all-zero shared secret, which libsodium refuses too.
      const zero = new Uint8Array(32);
      const one = new Uint8Array(32);
      one[0] = 1;
      for (const point of [zero, one]) {
        await rejects(seal(m, point, { x25519 }), "invalid_key");
        const bad = sealed.slice();
        bad.set(point, 0);
        await rejects(open(bad, keys.publicKey, keys.secretKey, { x25519 }), "decryption_failed");
      }
    });
    await t.step("a box sealed twice differs (fresh ephemeral key)", async () => {
      const again = await seal(m, keys.publicKey, { x25519 });
      assert.notDeepEqual(again.subarray(0, 32), sealed.subarray(0, 32));
      assert.deepEqual(await open(again, keys.publicKey, keys.secretKey, { x25519 }), m);
    });
  });
}
