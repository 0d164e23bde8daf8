import assert from "node:assert/strict";
import { CryptoError } from "../../src/crypto/errors.ts";
import { generateKeyPair } from "../../src/crypto/keys.ts";
import { seal } from "../../src/crypto/sealed_box.ts";
import { REPLY_GROUP, SealedBoxOpener } from "../../src/vault/opener.ts";

function isDecryptionFailure(err: unknown): boolean {
  assert.ok(err instanceof CryptoError, `expected a CryptoError, got ${err}`);
  assert.equal(err.code, "decryption_failed");
  return true;
}

Deno.test("opener: opens what seal sealed, byte for byte, at 0 B, 1 KiB and 100 KiB", async () => {
  const { publicKey, secretKey } = generateKeyPair();
  const opener = new SealedBoxOpener();
  try {
    for (const size of [0, 1024, 100 * 1024]) {
      const message = new Uint8Array(size);
      // getRandomValues fills at most 64 KiB at a time.
      for (let i = 0; i < size; i += 65536) {
        crypto.getRandomValues(message.subarray(i, Math.min(size, i + 65536)));
      }
      const sealed = await seal(message, publicKey);
      assert.equal(sealed.length, size + 48);
      const opened = await opener.open(sealed, publicKey, secretKey);
      assert.ok(opened instanceof Uint8Array);
      assert.equal(opened.length, size, `length at ${size} bytes`);
      assert.deepEqual(opened, message, `bytes at ${size} bytes`);
    }
  } finally {
    opener.close();
  }
});

Deno.test("opener: many concurrent opens each resolve to their own plaintext", async () => {
  const { publicKey, secretKey } = generateKeyPair();
  const encoder = new TextEncoder();
  const messages = Array.from(
    { length: 300 },
    (_, i) => encoder.encode(`message ${i} `.repeat(1 + (i % 17))),
  );
  const sealed = await Promise.all(messages.map((m) => seal(m, publicKey)));
  const opener = new SealedBoxOpener();
  try {
    const opened = await Promise.all(sealed.map((box) => opener.open(box, publicKey, secretKey)));
    assert.equal(opened.length, messages.length);
    for (const [i, plain] of opened.entries()) assert.deepEqual(plain, messages[i], `message ${i}`);
  } finally {
    opener.close();
  }
});

Deno.test("opener: a wrong key or a tampered box rejects with CryptoError decryption_failed", async () => {
  const { publicKey, secretKey } = generateKeyPair();
  const other = generateKeyPair();
  const message = new TextEncoder().encode("only for the recipient");
  const sealed = await seal(message, publicKey);
  const tampered = sealed.slice();
  tampered[60] ^= 0x01;
  const truncated = sealed.subarray(0, 40);
  const opener = new SealedBoxOpener();
  try {
    // Failures and successes interleaved: each answer reaches its own caller. Every promise
    // gets its handler at once, so no rejection waits unhandled.
    const results = await Promise.all([
      opener.open(sealed, publicKey, secretKey),
      assert.rejects(opener.open(sealed, other.publicKey, other.secretKey), isDecryptionFailure),
      assert.rejects(opener.open(sealed, publicKey, other.secretKey), isDecryptionFailure),
      assert.rejects(opener.open(tampered, publicKey, secretKey), isDecryptionFailure),
      assert.rejects(opener.open(truncated, publicKey, secretKey), isDecryptionFailure),
      opener.open(sealed, publicKey, secretKey),
    ]);
    assert.deepEqual(results[0], message);
    assert.deepEqual(results[5], message);
    // Bad key material is a CryptoError too, with its own code.
    await assert.rejects(opener.open(sealed, publicKey, new Uint8Array(31)), (err) => {
      assert.ok(err instanceof CryptoError);
      assert.equal(err.code, "invalid_key");
      return true;
    });
    // The worker is still serving after the failures.
    assert.deepEqual(await opener.open(sealed, publicKey, secretKey), message);
  } finally {
    opener.close();
  }
});

Deno.test("opener: close() rejects the opens still pending and stops the worker", async () => {
  const { publicKey, secretKey } = generateKeyPair();
  const message = crypto.getRandomValues(new Uint8Array(32 * 1024));
  const sealed = await seal(message, publicKey);
  // Deno's sanitizers do not notice a live worker: count terminations instead.
  const Original = globalThis.Worker;
  let terminated = 0;
  globalThis.Worker = class extends Original {
    override terminate() {
      terminated++;
      super.terminate();
    }
  };
  let opener: SealedBoxOpener;
  try {
    opener = new SealedBoxOpener();
  } finally {
    globalThis.Worker = Original;
  }
  // One round trip first, so the worker is surely up.
  assert.deepEqual(await opener.open(sealed, publicKey, secretKey), message);
  // No answer can arrive before this synchronous close: every one of these is pending.
  const pending = Array.from({ length: 20 }, () => opener.open(sealed, publicKey, secretKey));
  assert.equal(terminated, 0);
  opener.close();
  assert.equal(terminated, 1, "the worker is terminated");
  const settled = await Promise.allSettled(pending);
  for (const result of settled) {
    assert.equal(result.status, "rejected");
    assert.match(String((result as PromiseRejectedResult).reason), /The opener is closed/);
  }
  // Closing twice is harmless.
  opener.close();
});

Deno.test("opener: the boxes asked for in one tick go as one message; answers come in groups", async () => {
  const { publicKey, secretKey } = generateKeyPair();
  const count = 2 * REPLY_GROUP + 5;
  const boxes = await Promise.all(
    Array.from({ length: count }, (_, i) => seal(new Uint8Array([i]), publicKey)),
  );
  // Counts the messages each way of the workers started meanwhile.
  const messages = { posted: 0, answered: 0 };
  const Original = globalThis.Worker;
  globalThis.Worker = class extends Original {
    constructor(specifier: string | URL, options?: WorkerOptions) {
      super(specifier, options);
      this.addEventListener("message", () => messages.answered++);
    }
    override postMessage(
      message: unknown,
      options?: Transferable[] | StructuredSerializeOptions,
    ): void {
      messages.posted++;
      super.postMessage(message, options as StructuredSerializeOptions);
    }
  };
  let opener: SealedBoxOpener;
  try {
    opener = new SealedBoxOpener();
  } finally {
    globalThis.Worker = Original;
  }
  try {
    const opened = await Promise.all(boxes.map((box) => opener.open(box, publicKey, secretKey)));
    assert.deepEqual(opened.map((plain) => plain[0]), boxes.map((_, i) => i));
    assert.deepEqual(messages, { posted: 1, answered: 3 }, "32 + 32 + 5 answers");
    // A later tick is a batch of its own.
    const [a, b] = await Promise.all([
      opener.open(boxes[3], publicKey, secretKey),
      new Promise((r) => setTimeout(r, 5)).then(() => opener.open(boxes[4], publicKey, secretKey)),
    ]);
    assert.deepEqual([a[0], b[0]], [3, 4]);
    assert.deepEqual(messages, { posted: 3, answered: 5 });
  } finally {
    opener.close();
  }
  await assert.rejects(opener.open(boxes[0], publicKey, secretKey), /closed/);
});
