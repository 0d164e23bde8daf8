/**
 * python3-nacl (libsodium, C) driven over a pipe: a second sealed-box implementation that
 * nobody here wrote. One process serves a whole test file.
 */
import { PYTHON } from "./python.ts";
import { fromBase64, toBase64 } from "../../src/crypto/encoding.ts";
import type { KeyPair } from "../../src/crypto/keys.ts";

const HELPER = new URL("./nacl_helper.py", import.meta.url).pathname;

/** A running helper process. */
export class Nacl {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;

  constructor() {
    this.#child = new Deno.Command(PYTHON, {
      args: [HELPER],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#lines = this.#child.stdout
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(splitLines())[Symbol.asyncIterator]();
  }

  async #call(request: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(request) + "\n"));
    const { value, done } = await this.#lines.next();
    if (done) throw new Error("python3-nacl helper exited");
    return JSON.parse(value);
  }

  /** A libsodium key pair. */
  async keyPair(): Promise<KeyPair> {
    const r = await this.#call({ op: "keypair" });
    return { publicKey: fromBase64(r.pk as string), secretKey: fromBase64(r.sk as string) };
  }

  /** libsodium crypto_box_seal. */
  async seal(message: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array> {
    const r = await this.#call({ op: "seal", pk: toBase64(publicKey), msg: toBase64(message) });
    return fromBase64(r.ct as string);
  }

  /** libsodium crypto_box_seal_open; throws with libsodium's message on failure. */
  async open(sealed: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array) {
    const r = await this.#call({
      op: "open",
      pk: toBase64(publicKey),
      sk: toBase64(secretKey),
      ct: toBase64(sealed),
    });
    if (typeof r.error === "string") throw new Error(r.error);
    return fromBase64(r.msg as string);
  }

  /** Native libsodium seal/open rates for a zero message of `size` bytes. */
  async bench(size: number, seconds: number): Promise<{ seal: number; open: number }> {
    const r = await this.#call({ op: "bench", size, seconds });
    return { seal: r.seal as number, open: r.open as number };
  }

  /** Ends the process and waits for it. */
  async close(): Promise<void> {
    await this.#writer.close();
    await this.#child.status;
  }
}

function splitLines(): TransformStream<string, string> {
  let pending: string[] = [];
  return new TransformStream({
    transform(chunk, controller) {
      let i;
      while ((i = chunk.indexOf("\n")) >= 0) {
        pending.push(chunk.slice(0, i));
        controller.enqueue(pending.join(""));
        pending = [];
        chunk = chunk.slice(i + 1);
      }
      if (chunk) pending.push(chunk);
    },
  });
}
