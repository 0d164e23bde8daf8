/**
 * The worker side of {@link SealedBoxOpener}: opens the batches of sealed boxes it is sent, in
 * order, and answers each box with the plaintext or the reason it could not, in groups.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { open } from "../crypto/sealed_box.ts";
import { type OpenReply, type OpenRequest, REPLY_GROUP } from "./opener.ts";

self.onmessage = async ({ data }: MessageEvent<OpenRequest[]>) => {
  let replies: OpenReply[] = [];
  let transfer: ArrayBuffer[] = [];
  for (const [i, request] of data.entries()) {
    const reply = await openOne(request);
    replies.push(reply);
    if (reply.plain) transfer.push(reply.plain.buffer as ArrayBuffer);
    if (replies.length === REPLY_GROUP || i === data.length - 1) {
      self.postMessage(replies, transfer);
      replies = [];
      transfer = [];
    }
  }
};

async function openOne(request: OpenRequest): Promise<OpenReply> {
  try {
    return {
      id: request.id,
      plain: await open(request.ciphertext, request.publicKey, request.secretKey),
    };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      id: request.id,
      error: {
        code: typeof code === "string" ? code : "error",
        message: err instanceof Error ? err.message : String(err),
      },
    };
  }
}
