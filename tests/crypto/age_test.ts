import assert from "node:assert/strict";
import {
  ageIdentity,
  ageRecipient,
  decryptFileStream,
  parseAgeRecipient,
} from "../../src/crypto/age.ts";
import {
  encryptFile,
  MAX_ENCRYPTED_PLAINTEXT_BYTES,
  MIN_PADDED_BYTES,
  paddedSize,
} from "../../src/crypto/age_encrypt.ts";
import { Decrypter, Encrypter } from "age-encryption";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { MAX_FILE_BYTES } from "../../src/forms/file_ref.ts";
import { AGE } from "../_support/tools.ts";

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
  const damaged = ciphertext.slice();
  damaged[damaged.length - 100] ^= 1;
  await assert.rejects(
    readAll(
      await decryptFileStream(new Blob([damaged as BlobPart]).stream(), pair.secretKey, 10_000),
    ),
  );
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
