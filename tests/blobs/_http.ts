/**
 * Helpers of the blob tests over real HTTP.
 */
import { UrlSigner } from "../../src/blobs/index.ts";
import { readRelaySecret } from "../../src/store/data_dir.ts";
import { call, type TestInstance } from "../_support/server.ts";
import { sha256 } from "./_helpers.ts";

/** POST /submissions/upload-slot. */
export function slot(inst: TestInstance, json: unknown) {
  return call(`${inst.url}/submissions/upload-slot`, { method: "POST", json });
}

/** Gets a slot for `bytes` (user: the instance's first one) and PUTs them. */
export async function upload(
  inst: TestInstance,
  bytes: Uint8Array<ArrayBuffer>,
  options: { mime?: string; sizeBytes?: number; contentType?: string | null } = {},
) {
  const { mime, sizeBytes } = options;
  const granted = await slot(inst, {
    recipientUserId: inst.credentials.userId,
    hash: sha256(bytes),
    ...(mime !== undefined ? { mime } : {}),
    ...(sizeBytes !== undefined ? { sizeBytes } : {}),
  });
  if (granted.status !== 200) throw new Error(`slot: ${JSON.stringify(granted.body)}`);
  const contentType = options.contentType === undefined ? mime : options.contentType;
  const put = await call(granted.body.url, {
    method: "PUT",
    body: bytes,
    // As Sealpost's SDK sends it: an S3 store checks the bytes against the signed hash.
    headers: {
      "x-amz-content-sha256": sha256(bytes),
      ...(contentType ? { "content-type": contentType } : {}),
    },
  });
  return { slot: granted.body as { url: string; key: string; expiresAtUtc: string }, put };
}

/** GET /submissions/blob/{userId}/{hash} with the instance's owner token (or `token`). */
export function readUrl(
  inst: TestInstance,
  hash: string,
  token: string | undefined = inst.credentials.ownerToken,
  userId = inst.credentials.userId,
) {
  return call(`${inst.url}/submissions/blob/${userId}/${hash}`, { token });
}

/** The instance's own URL signer (from its relay secret), to forge URLs it would accept. */
export async function signerOf(inst: TestInstance): Promise<UrlSigner> {
  return await UrlSigner.fromRelaySecret(await readRelaySecret(inst.config.data_dir));
}

/** Creates another user; returns its id and owner token. */
export async function otherUser(inst: TestInstance): Promise<{ id: string; token: string }> {
  const created = await call(`${inst.url}/admin/users`, {
    method: "POST",
    token: inst.credentials.adminToken,
    json: { name: "other" },
  });
  if (created.status !== 201) throw new Error(`user: ${JSON.stringify(created.body)}`);
  return { id: created.body.user.id, token: created.body.ownerToken };
}

/**
 * Sends one raw HTTP/1.1 request (the path exactly as given, never normalized) and returns
 * the status code. `headers` may replace Content-Length (to declare a body never sent).
 */
export async function rawStatus(
  inst: TestInstance,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = "",
): Promise<number> {
  const { hostname, port } = new URL(inst.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const all: Record<string, string> = {
      Host: `${hostname}:${port}`,
      Connection: "close",
      "Content-Length": String(new TextEncoder().encode(body).length),
      ...headers,
    };
    const head = [
      `${method} ${path} HTTP/1.1`,
      ...Object.entries(all).map(([k, v]) => `${k}: ${v}`),
    ].join("\r\n");
    await conn.write(new TextEncoder().encode(`${head}\r\n\r\n${body}`));
    const reader = conn.readable.getReader();
    let text = "";
    while (!text.includes("\r\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
    if (!status) throw new Error(`No status line in ${JSON.stringify(text.slice(0, 100))}`);
    return Number(status[1]);
  } finally {
    conn.close();
  }
}
