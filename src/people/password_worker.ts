/**
 * The worker side of src/people/password.ts: computes the raw Argon2id hash of each request,
 * one at a time, off the server's event loop (a hash holds the thread it runs on for its whole
 * cost), and answers it by its id.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { argon2id } from "hash-wasm";
import type { HashReply, HashRequest } from "./password.ts";

self.onmessage = async ({ data }: MessageEvent<HashRequest>) => {
  try {
    const hash = await argon2id({
      password: data.password,
      salt: data.salt,
      memorySize: data.params.m,
      iterations: data.params.t,
      parallelism: data.params.p,
      hashLength: data.hashLength,
      outputType: "binary",
    });
    self.postMessage({ id: data.id, hash } satisfies HashReply, [hash.buffer as ArrayBuffer]);
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    self.postMessage({ id: data.id, error } satisfies HashReply);
  }
};
