import assert from "node:assert/strict";
import {
  ageIdentity,
  ageRecipient,
  decryptFileStream,
  parseAgeRecipient,
} from "../../src/crypto/age.ts";
import {
  encryptFile,
  encryptFileHashed,
  MAX_ENCRYPTED_PLAINTEXT_BYTES,
  MIN_PADDED_BYTES,
  paddedSize,
} from "../../src/crypto/age_encrypt.ts";
import { Decrypter, Encrypter } from "age-encryption";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { MAX_FILE_BYTES } from "../../src/forms/file_ref.ts";
import { AGE } from "../_support/tools.ts";
import { chunkSealer, nativeSealer, nobleSealer } from "../../src/crypto/_age_chunks.ts";
import { nativeCrypto } from "../../src/crypto/_native.ts";
import { createHash } from "node:crypto";

const marker = new TextEncoder().encode("MARKER-plaintext-0123456789 ".repeat(300));

async function age(args: string[], stdin: Uint8Array): Promise<Uint8Array> {
  const child = new Deno.Command(AGE, { args, stdin: "piped", stdout: "piped", stderr: "piped" })
    .spawn();
  // Write while reading: a large file would fill the stdout pipe and block both sides.
  const output = child.output();
  const writer = child.stdin.getWriter();
  await writer.write(stdin);
  await writer.close();
  const out = await output;
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("paddedSize: 4 KiB floor, Padmé buckets within 12 %, capped", () => {
  assert.equal(paddedSize(1), MIN_PADDED_BYTES);
  assert.equal(paddedSize(4096), 4096);
  assert.equal(paddedSize(1_000_000), 1_015_808);
  for (const size of [4097, 10_000, 123_456, 7_777_777, 40_000_000]) {
    const padded = paddedSize(size);
    assert.ok(padded >= size && padded <= size * 1.12, `${size} → ${padded}`);
  }
  assert.equal(paddedSize(MAX_ENCRYPTED_PLAINTEXT_BYTES), MAX_ENCRYPTED_PLAINTEXT_BYTES);
  // The largest file's ciphertext still fits the upload limit.
  const chunks = Math.ceil(MAX_ENCRYPTED_PLAINTEXT_BYTES / 65536);
  assert.ok(MAX_ENCRYPTED_PLAINTEXT_BYTES + 16 * chunks + 1024 <= MAX_FILE_BYTES);
});

Deno.test("ageRecipient/ageIdentity: the age CLI derives the same recipient", async () => {
  const pair = generateKeyPair();
  const identity = ageIdentity(pair.secretKey);
  assert.match(identity, /^AGE-SECRET-KEY-1[0-9A-Z]{58}$/);
  const recipient = ageRecipient(pair.publicKey);
  assert.match(recipient, /^age1[0-9a-z]{58}$/);
  const keygen = new Deno.Command("age-keygen", { args: ["-y"], stdin: "piped", stdout: "piped" })
    .spawn();
  const w = keygen.stdin.getWriter();
  await w.write(new TextEncoder().encode(identity + "\n"));
  await w.close();
  assert.equal(new TextDecoder().decode((await keygen.output()).stdout).trim(), recipient);
  assert.throws(() => ageRecipient(new Uint8Array(31)), /32 bytes/);
  assert.deepEqual(parseAgeRecipient(recipient), pair.publicKey);
  assert.throws(() => parseAgeRecipient("age1qqqq"), { code: "invalid_key" });
});

Deno.test("encryptFile: the age CLI decrypts it; padding is zeros; fresh bytes each time", async () => {
  const pair = generateKeyPair();
  const dir = await Deno.makeTempDir();
  try {
    const idFile = `${dir}/identity.txt`;
    await Deno.writeTextFile(idFile, ageIdentity(pair.secretKey) + "\n");
    const ciphertext = encryptFile(marker, pair.publicKey);
    const plain = await age(["-d", "-i", idFile], ciphertext);
    assert.equal(plain.length, paddedSize(marker.length));
    assert.deepEqual(plain.subarray(0, marker.length), marker);
    assert.ok(plain.subarray(marker.length).every((b) => b === 0));
    const again = encryptFile(marker, pair.publicKey);
    assert.notDeepEqual(again, ciphertext);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("decryptFileStream: reads what the age CLI wrote, cut to sizeBytes", async () => {
  const pair = generateKeyPair();
  const ciphertext = await age(["-r", ageRecipient(pair.publicKey)], marker);
  const plain = await readAll(
    await decryptFileStream(
      new Blob([ciphertext as BlobPart]).stream(),
      pair.secretKey,
      marker.length,
    ),
  );
  assert.deepEqual(plain, marker);
});

Deno.test("decryptFileStream: wrong key and damaged bytes are refused", async () => {
  const pair = generateKeyPair();
  const ciphertext = encryptFile(marker, pair.publicKey);
  await assert.rejects(
    decryptFileStream(new Blob([ciphertext as BlobPart]).stream(), generateKeyPair().secretKey, 10),
    { name: "CryptoError", code: "decryption_failed" },
  );
  // Damage in the first chunk: refused before any byte is given out.
  const damaged = ciphertext.slice();
  damaged[damaged.length - 100] ^= 1;
  await assert.rejects(
    decryptFileStream(new Blob([damaged as BlobPart]).stream(), pair.secretKey, 10_000),
    { name: "CryptoError", code: "decryption_failed", message: /Chunk 0 .*authenticate/ },
  );
  // Damage further in (here in the padding, past the real size): the stream errors.
  const big = encryptFile(new Uint8Array(300_000).fill(7), pair.publicKey);
  const later = big.slice();
  later[later.length - 100] ^= 1;
  const opened = await decryptFileStream(
    new Blob([later as BlobPart]).stream(),
    pair.secretKey,
    300_000,
  );
  await assert.rejects(readAll(opened), { code: "decryption_failed", message: /Chunk 4 / });
  // A truncated file: the stream errors too.
  const cut = await decryptFileStream(
    new Blob([big.subarray(0, big.length - 65_552) as BlobPart]).stream(),
    pair.secretKey,
    300_000,
  );
  await assert.rejects(readAll(cut), { code: "decryption_failed" });
  assert.throws(
    () => encryptFile(new Uint8Array(MAX_ENCRYPTED_PLAINTEXT_BYTES + 1), pair.publicKey),
    { code: "invalid_input" },
  );
  assert.throws(() => encryptFile(marker, new Uint8Array(32)), { code: "invalid_key" });
});

Deno.test("encryptFile and age-encryption agree, across chunk boundaries and bucket sizes", async () => {
  const pair = generateKeyPair();
  const decrypter = new Decrypter();
  decrypter.addIdentity(ageIdentity(pair.secretKey));
  for (const size of [1, 4096, 65_536, 65_537, 200_000, 1_000_003]) {
    const plain = crypto.getRandomValues(new Uint8Array(Math.min(size, 65_536)));
    const file = new Uint8Array(size).map((_, i) => plain[i % plain.length]);
    const opened = await decrypter.decrypt(encryptFile(file, pair.publicKey));
    assert.equal(opened.length, paddedSize(size));
    assert.deepEqual(opened.subarray(0, size), file);
  }
  // And our streaming reader opens what age-encryption wrote.
  const encrypter = new Encrypter();
  encrypter.addRecipient(ageRecipient(pair.publicKey));
  const theirs = await encrypter.encrypt(marker);
  const plain = await readAll(
    await decryptFileStream(new Blob([theirs as BlobPart]).stream(), pair.secretKey, marker.length),
  );
  assert.deepEqual(plain, marker);
});

/** `bytes` as a stream of `piece`-byte chunks. */
function pieces(bytes: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at += piece));
    },
  });
}

Deno.test("decryptFileStream: many chunks in odd pieces, exact chunk boundaries; truncation refused", async () => {
  const pair = generateKeyPair();
  for (const size of [65_536, 131_072, 200_003]) {
    const file = new Uint8Array(size).map(() => Math.random() * 256);
    const ciphertext = await age(["-r", ageRecipient(pair.publicKey)], file);
    for (const piece of [1000, 65_552, 1 << 20]) {
      const plain = await readAll(
        await decryptFileStream(pieces(ciphertext, piece), pair.secretKey, size),
      );
      assert.deepEqual(plain, file, `${size} bytes in ${piece}-byte pieces`);
    }
    // Cut at a chunk boundary, or inside a chunk: never accepted as a shorter file.
    for (const cut of [16 + 65_552, 100]) {
      const short = ciphertext.subarray(0, ciphertext.length - cut);
      await assert.rejects(async () =>
        await readAll(await decryptFileStream(pieces(short, 4096), pair.secretKey, size))
      );
    }
  }
  await assert.rejects(
    decryptFileStream(pieces(new TextEncoder().encode("not an age file"), 5), pair.secretKey, 1),
    { code: "decryption_failed" },
  );
});

Deno.test("decryptFileStream: whole padding chunks past sizeBytes are authenticated, not served", async () => {
  const pair = generateKeyPair();
  // 5,000,000 bytes pad to 5,111,808: the last chunk past the real size is all padding.
  const file = new Uint8Array(5_000_000).map((_, i) => i % 251);
  const ciphertext = encryptFile(file, pair.publicKey);
  for (const piece of [262_144, 65_552, 100_000]) {
    const plain = await readAll(
      await decryptFileStream(pieces(ciphertext, piece), pair.secretKey, file.length),
    );
    assert.deepEqual(plain, file, `in ${piece}-byte pieces`);
  }
  // A size far below the stored one: only its bytes, every chunk still checked.
  assert.deepEqual(
    await readAll(await decryptFileStream(pieces(ciphertext, 262_144), pair.secretKey, 10)),
    file.subarray(0, 10),
  );
  const damaged = ciphertext.slice();
  damaged[damaged.length - 20] ^= 1;
  await assert.rejects(
    readAll(await decryptFileStream(pieces(damaged, 262_144), pair.secretKey, 10)),
    { code: "decryption_failed" },
  );
});

Deno.test("chunk sealers: native (node:crypto) and @noble write the same bytes", () => {
  const native = nativeCrypto();
  assert.ok(native, "Deno has node:crypto with ChaCha20-Poly1305");
  assert.notEqual(chunkSealer(), nobleSealer, "the native one is chosen here");
  const key = crypto.getRandomValues(new Uint8Array(32));
  const nonce = new Uint8Array(12);
  for (const length of [1, 4096, 65_535, 65_536]) {
    const chunk = crypto.getRandomValues(new Uint8Array(Math.min(length, 65_536)));
    new DataView(nonce.buffer).setUint32(7, length);
    nonce[11] = length % 2;
    const a = new Uint8Array(length + 16);
    const b = new Uint8Array(length + 16);
    nativeSealer(native)(key, nonce, chunk, a);
    nobleSealer(key, nonce, chunk, b);
    assert.deepEqual(a, b, `${length} bytes`);
  }
});

Deno.test("encryptFileHashed: the SHA-256 of the ciphertext, hashed while encrypting", async () => {
  const pair = generateKeyPair();
  const decrypter = new Decrypter();
  decrypter.addIdentity(ageIdentity(pair.secretKey));
  for (const size of [1, 65_536, 300_001]) {
    const file = new Uint8Array(size).map((_, i) => i % 253);
    const { bytes, sha256 } = encryptFileHashed(file, pair.publicKey);
    assert.equal(sha256, createHash("sha256").update(bytes).digest("hex"));
    assert.deepEqual((await decrypter.decrypt(bytes)).subarray(0, size), file);
  }
});
