/**
 * Console test fixtures: a form of every field kind (as the builder posts it), a tiny PNG,
 * a database, and a loopback webhook receiver whose answer can be switched.
 */
import assert from "node:assert/strict";
import { call, type TestInstance } from "../_support/server.ts";

export { waitFor } from "../web/_fixture.ts";

/** Every field kind with options, as builder form fields (`f.<i>.<option>`). */
export const EVERY_KIND: Record<string, string>[] = [
  { id: "name", kind: "text", label: "Name", required: "on", maxLength: "200", pattern: ".+" },
  { id: "email", kind: "email", label: "Email", maxLength: "254" },
  { id: "site", kind: "url", label: "Site" },
  { id: "phone", kind: "phone", label: "Phone" },
  { id: "bio", kind: "richText", label: "Bio", maxLength: "5000" },
  { id: "age", kind: "number", label: "Age", min: "0", max: "150", integer: "on" },
  { id: "agree", kind: "boolean", label: "Agree" },
  { id: "born", kind: "date", label: "Born", min: "1800-01-01" },
  { id: "when", kind: "dateTime", label: "When" },
  { id: "topic", kind: "choice", label: "Topic", options: "question\nbug\npraise" },
  {
    id: "langs",
    kind: "choice",
    label: "Languages",
    options: "en\nfr\nde",
    multiple: "on",
    maxItems: "2",
  },
  { id: "tags", kind: "list", label: "Tags", maxItems: "5", maxItemLength: "20" },
  { id: "where", kind: "geo", label: "Where" },
  { id: "photo", kind: "image", label: "Photo", accept: "image/*", maxSizeBytes: "100000" },
  { id: "cv", kind: "attachment", label: "CV", accept: "application/pdf, text/plain" },
];

/** The builder's form body for `fields`. */
export function builderBody(
  title: string,
  fields: Record<string, string>[],
  action: string,
): Record<string, string> {
  const body: Record<string, string> = { title, action };
  fields.forEach((f, i) => {
    for (const [k, v] of Object.entries(f)) body[`f.${i}.${k}`] = v;
  });
  return body;
}

/** A 1x1 PNG. */
export const PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
);

/** Creates a database "main" of the instance's owner through the owner API; its id. */
export async function newDatabase(inst: TestInstance): Promise<string> {
  const db = await call(`${inst.url}/vault/databases`, {
    method: "POST",
    token: inst.credentials.ownerToken,
    json: { name: "main" },
  });
  assert.equal(db.status, 201, JSON.stringify(db.body));
  return db.body.id;
}

/** A loopback webhook receiver answering `status` (switchable); counts what it got. */
export function startReceiver() {
  const state = { status: 400, received: [] as string[] };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    state.received.push(await req.text());
    return new Response(state.status < 300 ? "thanks" : "nope: bad request", {
      status: state.status,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    state,
    close: () => server.shutdown(),
  };
}
