/**
 * The worker side of {@link SealedBoxOpener}: opens the sealed boxes it is sent, in order,
 * and answers each with the plaintext or the reason it could not.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { open } from "../crypto/sealed_box.ts";
import type { OpenReply, OpenRequest } from "./opener.ts";

self.onmessage = async ({ data }: MessageEvent<OpenRequest>) => {
  let reply: OpenReply;
  try {
    const plain = await open(data.ciphertext, data.publicKey, data.secretKey);
    reply = { id: data.id, plain };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    reply = {
      id: data.id,
      error: {
        code: typeof code === "string" ? code : "error",
        message: err instanceof Error ? err.message : String(err),
      },
    };
  }
  self.postMessage(reply, reply.plain ? [reply.plain.buffer as ArrayBuffer] : []);
};
