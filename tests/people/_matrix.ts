/**
 * The role matrix: every vault route, webhook route and console page, called over real HTTP
 * by each kind of caller (owner, editor, viewer, non-member, removed member, expired token,
 * token without the scope), against what src/people/access.ts promises:
 *
 * - a non-member (or a removed member) gets the resource's own 404, exactly as for a missing
 *   one, and lists without the database's items;
 * - a member whose role is too low gets 403 `forbidden`;
 * - a token without the scope gets 403 `insufficient_scope` (console sessions carry every
 *   scope, so in the console that caller is their role);
 * - an expired token gets 401 (in the console: no session, sign-in refused).
 *
 * Persons, memberships and tokens are made directly through the instance's store ports.
 */
import { call, startInstance, type TestInstance } from "../_support/server.ts";
import { addPerson } from "../_support/people.ts";
import { vaultForm } from "../_support/vault.ts";
import { ConsoleClient, csrfOf, withPassword } from "../console/_client.ts";

/** The kinds of caller. */
export const PERSONAS = [
  "owner",
  "editor",
  "viewer",
  "nonMember",
  "removed",
  "expired",
  "noScope",
] as const;
/** A kind of caller. */
export type Persona = typeof PERSONAS[number];

/**
 * What a route needs: a role on the resource's database (`viewer`, `editor`, `owner`), an
 * instance admin (`admin`), any person (`person`); `list` routes answer a non-member with
 * an empty list instead of a 404 (their role: `listRole`).
 */
export type Need = "viewer" | "editor" | "owner" | "admin" | "person";

/** The resources a route is called on. */
export interface Fixture {
  databaseId: string;
  formId: string;
  recordId: string;
  webhookId: string;
  deliveryId: string;
  quarantineId: string;
  /** A token of a person who is none of the callers. */
  tokenId: string;
}

/** One route (or page) of the matrix. */
export interface RouteCase {
  /** `METHOD path` as the OpenAPI document (or the console) names it. */
  route: string;
  need: Need;
  /** A list: non-members get `ok` with no items of the database, not a 404. */
  list?: boolean;
  /** The status of an allowed call. */
  ok: number;
  /** The error code of an allowed call answered with an error status (e.g. a file route). */
  okCode?: string;
  /** The 404 code of a missing resource (what a non-member gets). */
  notFound?: string;
  /** The status of a missing resource when it is not 404 (a page shown again with the error). */
  missing?: number;
  /** Changes or removes its resources: each call gets fresh ones. */
  fresh?: boolean;
  /**
   * A `person` route that still needs a scope of the token (making a token: no scope its
   * maker lacks): a token without it gets 403 `insufficient_scope`.
   */
  scoped?: boolean;
  /** The request on fixture `f`. */
  request(
    f: Fixture,
  ): { method: string; path: string; json?: unknown; form?: Record<string, string> };
}

const FIELDS = [{ id: "name", kind: "text", label: "Name" }];
/** An email nobody has yet (people and invitations). */
const newEmail = () => `p${crypto.getRandomValues(new Uint8Array(6)).toHex()}@example.org`;
const HOOK = "https://e.example/h";
/** The console builder's form of a one-field form, published. */
const BUILDER = {
  title: "Matrix",
  action: "publish",
  "f.0.id": "name",
  "f.0.label": "Name",
  "f.0.kind": "text",
};
/** The console webhook editor's form. */
const WEBHOOK = {
  url: HOOK,
  method: "POST",
  mode: "default",
  mappings: "",
  events: "create",
  signatureHeader: "X-Sealpost-Signature",
};

/** The vault and webhook API routes (every operation of the OpenAPI document under them). */
export const API_CASES: RouteCase[] = [
  {
    route: "GET /vault/databases",
    need: "viewer",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/databases" }),
  },
  {
    route: "POST /vault/databases",
    need: "admin",
    ok: 201,
    request: () => ({ method: "POST", path: "/vault/databases", json: { name: "more" } }),
  },
  {
    route: "GET /vault/manifest-key",
    need: "person",
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/manifest-key" }),
  },
  {
    route: "GET /vault/forms",
    need: "viewer",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/forms" }),
  },
  {
    route: "POST /vault/forms",
    need: "editor",
    ok: 201,
    notFound: "database_not_found",
    request: (f) => ({
      method: "POST",
      path: "/vault/forms",
      json: { databaseId: f.databaseId, title: "New", fields: FIELDS },
    }),
  },
  {
    route: "GET /vault/forms/{formId}",
    need: "viewer",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "GET", path: `/vault/forms/${f.formId}` }),
  },
  {
    route: "PUT /vault/forms/{formId}",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    fresh: true,
    request: (f) => ({
      method: "PUT",
      path: `/vault/forms/${f.formId}`,
      json: { title: "T2", fields: FIELDS },
    }),
  },
  {
    route: "PATCH /vault/forms/{formId}",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({
      method: "PATCH",
      path: `/vault/forms/${f.formId}`,
      json: { retentionDays: 30 },
    }),
  },
  {
    route: "DELETE /vault/forms/{formId}",
    need: "owner",
    ok: 204,
    notFound: "form_not_found",
    fresh: true,
    request: (f) => ({ method: "DELETE", path: `/vault/forms/${f.formId}` }),
  },
  {
    route: "GET /vault/forms/{formId}/versions",
    need: "viewer",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "GET", path: `/vault/forms/${f.formId}/versions` }),
  },
  {
    route: "POST /vault/forms/{formId}/publish",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "POST", path: `/vault/forms/${f.formId}/publish` }),
  },
  {
    route: "POST /vault/forms/{formId}/close",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: `/vault/forms/${f.formId}/close`,
      json: { message: "" },
    }),
  },
  {
    route: "POST /vault/forms/{formId}/reopen",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "POST", path: `/vault/forms/${f.formId}/reopen` }),
  },
  {
    route: "GET /vault/forms/{formId}/manifest",
    need: "viewer",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "GET", path: `/vault/forms/${f.formId}/manifest` }),
  },
  {
    route: "GET /vault/forms/{formId}/records",
    need: "viewer",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "GET", path: `/vault/forms/${f.formId}/records` }),
  },
  {
    route: "POST /vault/forms/{formId}/records",
    need: "editor",
    ok: 201,
    notFound: "form_not_found",
    request: (f) => ({
      method: "POST",
      path: `/vault/forms/${f.formId}/records`,
      json: { values: { name: "Ada" } },
    }),
  },
  {
    route: "GET /vault/forms/{formId}/records/{recordId}",
    need: "viewer",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "GET", path: `/vault/forms/${f.formId}/records/${f.recordId}` }),
  },
  {
    route: "PATCH /vault/forms/{formId}/records/{recordId}",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({
      method: "PATCH",
      path: `/vault/forms/${f.formId}/records/${f.recordId}`,
      json: { values: { name: "Bea" } },
    }),
  },
  {
    route: "DELETE /vault/forms/{formId}/records/{recordId}",
    need: "editor",
    ok: 204,
    notFound: "form_not_found",
    fresh: true,
    request: (f) => ({ method: "DELETE", path: `/vault/forms/${f.formId}/records/${f.recordId}` }),
  },
  {
    route: "GET /vault/forms/{formId}/records/{recordId}/files/{fieldId}",
    need: "viewer",
    ok: 404,
    okCode: "file_not_found",
    notFound: "form_not_found",
    request: (f) => ({
      method: "GET",
      path: `/vault/forms/${f.formId}/records/${f.recordId}/files/name`,
    }),
  },
  {
    route: "GET /vault/quarantine",
    need: "editor",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/quarantine" }),
  },
  {
    route: "POST /vault/quarantine/retry",
    need: "editor",
    ok: 200,
    notFound: "quarantine_not_found",
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: "/vault/quarantine/retry",
      json: { id: f.quarantineId },
    }),
  },
  {
    route: "POST /vault/quarantine/retry (all)",
    need: "editor",
    list: true,
    ok: 200,
    request: () => ({ method: "POST", path: "/vault/quarantine/retry", json: {} }),
  },
  {
    route: "DELETE /vault/quarantine/{id}",
    need: "editor",
    ok: 204,
    notFound: "quarantine_not_found",
    fresh: true,
    request: (f) => ({ method: "DELETE", path: `/vault/quarantine/${f.quarantineId}` }),
  },
  {
    route: "POST /vault/ingest",
    need: "admin",
    ok: 200,
    request: () => ({ method: "POST", path: "/vault/ingest" }),
  },
  {
    route: "GET /vault/audit",
    need: "admin",
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/audit" }),
  },
  {
    route: "GET /vault/audit/head",
    need: "person",
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/audit/head" }),
  },
  {
    route: "GET /vault/tokens",
    need: "person",
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/tokens" }),
  },
  {
    route: "POST /vault/tokens",
    need: "person",
    scoped: true,
    ok: 201,
    request: () => ({
      method: "POST",
      path: "/vault/tokens",
      json: { name: "matrix", scopes: ["records:read"] },
    }),
  },
  {
    // Another person's token answers like a missing one: every caller gets the 404.
    route: "DELETE /vault/tokens/{tokenId}",
    need: "person",
    ok: 404,
    okCode: "token_not_found",
    request: (f) => ({ method: "DELETE", path: `/vault/tokens/${f.tokenId}` }),
  },
  {
    route: "GET /owner/forms/{formId}/webhooks",
    need: "editor",
    ok: 200,
    notFound: "form_not_found",
    request: (f) => ({ method: "GET", path: `/owner/forms/${f.formId}/webhooks` }),
  },
  {
    route: "POST /owner/forms/{formId}/webhooks",
    need: "editor",
    ok: 201,
    notFound: "form_not_found",
    request: (f) => ({
      method: "POST",
      path: `/owner/forms/${f.formId}/webhooks`,
      json: { url: HOOK },
    }),
  },
  {
    route: "GET /owner/webhooks/{webhookId}",
    need: "editor",
    ok: 200,
    notFound: "webhook_not_found",
    request: (f) => ({ method: "GET", path: `/owner/webhooks/${f.webhookId}` }),
  },
  {
    route: "PATCH /owner/webhooks/{webhookId}",
    need: "editor",
    ok: 200,
    notFound: "webhook_not_found",
    request: (f) => ({
      method: "PATCH",
      path: `/owner/webhooks/${f.webhookId}`,
      json: { name: "renamed" },
    }),
  },
  {
    route: "DELETE /owner/webhooks/{webhookId}",
    need: "editor",
    ok: 204,
    notFound: "webhook_not_found",
    fresh: true,
    request: (f) => ({ method: "DELETE", path: `/owner/webhooks/${f.webhookId}` }),
  },
  {
    route: "POST /owner/webhooks/{webhookId}/test",
    need: "editor",
    ok: 200,
    notFound: "webhook_not_found",
    request: (f) => ({ method: "POST", path: `/owner/webhooks/${f.webhookId}/test` }),
  },
  {
    route: "GET /owner/webhooks/{webhookId}/deliveries",
    need: "editor",
    ok: 200,
    notFound: "webhook_not_found",
    request: (f) => ({ method: "GET", path: `/owner/webhooks/${f.webhookId}/deliveries` }),
  },
  {
    route: "POST /owner/webhooks/{webhookId}/deliveries/retry",
    need: "editor",
    ok: 200,
    notFound: "webhook_not_found",
    request: (f) => ({ method: "POST", path: `/owner/webhooks/${f.webhookId}/deliveries/retry` }),
  },
  {
    route: "GET /owner/deliveries/{deliveryId}",
    need: "editor",
    ok: 200,
    notFound: "delivery_not_found",
    request: (f) => ({ method: "GET", path: `/owner/deliveries/${f.deliveryId}` }),
  },
  {
    route: "POST /owner/deliveries/{deliveryId}/retry",
    need: "editor",
    ok: 202,
    notFound: "delivery_not_found",
    request: (f) => ({ method: "POST", path: `/owner/deliveries/${f.deliveryId}/retry` }),
  },
  {
    route: "GET /vault/people",
    need: "admin",
    ok: 200,
    request: () => ({ method: "GET", path: "/vault/people" }),
  },
  {
    route: "POST /vault/people",
    need: "admin",
    ok: 201,
    request: () => ({ method: "POST", path: "/vault/people", json: { email: newEmail() } }),
  },
  {
    route: "GET /vault/databases/{dbId}/members",
    need: "owner",
    ok: 200,
    notFound: "database_not_found",
    request: (f) => ({ method: "GET", path: `/vault/databases/${f.databaseId}/members` }),
  },
  {
    route: "POST /vault/databases/{dbId}/members",
    need: "owner",
    ok: 201,
    notFound: "database_not_found",
    request: (f) => ({
      method: "POST",
      path: `/vault/databases/${f.databaseId}/members`,
      json: { email: newEmail(), role: "viewer" },
    }),
  },
  // Called on a person who is no member: an owner gets past the gate to that 404.
  {
    route: "PATCH /vault/databases/{dbId}/members/{personId}",
    need: "owner",
    ok: 404,
    okCode: "member_not_found",
    notFound: "database_not_found",
    request: (f) => ({
      method: "PATCH",
      path: `/vault/databases/${f.databaseId}/members/nobody`,
      json: { role: "viewer" },
    }),
  },
  {
    route: "DELETE /vault/databases/{dbId}/members/{personId}",
    need: "owner",
    ok: 404,
    okCode: "member_not_found",
    notFound: "database_not_found",
    request: (f) => ({ method: "DELETE", path: `/vault/databases/${f.databaseId}/members/nobody` }),
  },
];

/** The console's pages and actions (each behind a session). */
export const CONSOLE_CASES: RouteCase[] = [
  {
    route: "GET /console/tokens",
    need: "person",
    ok: 200,
    request: () => ({ method: "GET", path: "/console/tokens" }),
  },
  {
    route: "POST /console/tokens",
    need: "person",
    ok: 200,
    request: () => ({
      method: "POST",
      path: "/console/tokens",
      form: { name: "matrix", scopes: "records:read", expiresInDays: "0" },
    }),
  },
  {
    route: "GET /console/tokens/{tokenId}/revoke",
    need: "person",
    ok: 404,
    request: (f) => ({ method: "GET", path: `/console/tokens/${f.tokenId}/revoke` }),
  },
  {
    route: "POST /console/tokens/{tokenId}/revoke",
    need: "person",
    ok: 404,
    request: (f) => ({
      method: "POST",
      path: `/console/tokens/${f.tokenId}/revoke`,
      form: {},
    }),
  },
  {
    route: "GET /console",
    need: "viewer",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/console" }),
  },
  {
    route: "GET /console/forms/new",
    need: "editor",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/console/forms/new" }),
  },
  {
    route: "POST /console/forms/new",
    need: "editor",
    ok: 303,
    // The builder is shown again with "No database … in this vault", as for a missing one.
    missing: 400,
    request: (f) => ({
      method: "POST",
      path: "/console/forms/new",
      form: { ...BUILDER, databaseId: f.databaseId },
    }),
  },
  {
    route: "GET /console/forms/{formId}",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}` }),
  },
  {
    route: "GET /console/forms/{formId}/builder",
    need: "editor",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/builder` }),
  },
  {
    route: "POST /console/forms/{formId}/builder",
    need: "editor",
    ok: 303,
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: `/console/forms/${f.formId}/builder`,
      form: BUILDER,
    }),
  },
  {
    route: "GET /console/forms/{formId}/versions",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/versions` }),
  },
  {
    route: "GET /console/forms/{formId}/share",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/share` }),
  },
  {
    route: "GET /console/forms/{formId}/qr.svg",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/qr.svg` }),
  },
  {
    route: "POST /console/forms/{formId}/close",
    need: "editor",
    ok: 303,
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: `/console/forms/${f.formId}/close`,
      form: { message: "" },
    }),
  },
  {
    route: "POST /console/forms/{formId}/reopen",
    need: "editor",
    ok: 303,
    request: (f) => ({ method: "POST", path: `/console/forms/${f.formId}/reopen`, form: {} }),
  },
  {
    route: "GET /console/forms/{formId}/delete",
    need: "owner",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/delete` }),
  },
  {
    route: "POST /console/forms/{formId}/delete",
    need: "owner",
    ok: 303,
    fresh: true,
    request: (f) => ({ method: "POST", path: `/console/forms/${f.formId}/delete`, form: {} }),
  },
  {
    route: "GET /console/quarantine",
    need: "editor",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/console/quarantine" }),
  },
  {
    route: "POST /console/quarantine/retry",
    need: "editor",
    list: true,
    ok: 303,
    request: () => ({ method: "POST", path: "/console/quarantine/retry", form: {} }),
  },
  {
    route: "POST /console/quarantine/{id}/retry",
    need: "editor",
    ok: 303,
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: `/console/quarantine/${f.quarantineId}/retry`,
      form: {},
    }),
  },
  {
    route: "POST /console/quarantine/{id}/discard",
    need: "editor",
    ok: 303,
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: `/console/quarantine/${f.quarantineId}/discard`,
      form: {},
    }),
  },
  {
    route: "GET /console/forms/{formId}/records",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/records` }),
  },
  {
    route: "GET /console/forms/{formId}/records/{recordId}",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/records/${f.recordId}` }),
  },
  {
    route: "GET /console/forms/{formId}/records/{recordId}/delete",
    need: "editor",
    ok: 200,
    request: (f) => ({
      method: "GET",
      path: `/console/forms/${f.formId}/records/${f.recordId}/delete`,
    }),
  },
  {
    route: "POST /console/forms/{formId}/records/{recordId}/delete",
    need: "editor",
    ok: 303,
    fresh: true,
    request: (f) => ({
      method: "POST",
      path: `/console/forms/${f.formId}/records/${f.recordId}/delete`,
      form: {},
    }),
  },
  {
    route: "GET /console/forms/{formId}/export.csv",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/export.csv` }),
  },
  {
    route: "GET /console/forms/{formId}/export.jsonl",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/export.jsonl` }),
  },
  {
    route: "GET /console/forms/{formId}/webhooks",
    need: "editor",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/forms/${f.formId}/webhooks` }),
  },
  {
    route: "POST /console/forms/{formId}/webhooks",
    need: "editor",
    ok: 303,
    request: (f) => ({
      method: "POST",
      path: `/console/forms/${f.formId}/webhooks`,
      form: { ...WEBHOOK, action: "save" },
    }),
  },
  {
    route: "POST /console/forms/{formId}/webhooks/preview",
    need: "editor",
    ok: 200,
    request: (f) => ({
      method: "POST",
      path: `/console/forms/${f.formId}/webhooks/preview`,
      form: WEBHOOK,
    }),
  },
  {
    route: "GET /console/webhooks/{webhookId}",
    need: "editor",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/webhooks/${f.webhookId}` }),
  },
  {
    route: "POST /console/webhooks/{webhookId}",
    need: "editor",
    ok: 303,
    request: (f) => ({
      method: "POST",
      path: `/console/webhooks/${f.webhookId}`,
      form: { ...WEBHOOK, name: "renamed", action: "save" },
    }),
  },
  {
    route: "POST /console/webhooks/{webhookId}/test",
    need: "editor",
    ok: 200,
    request: (f) => ({ method: "POST", path: `/console/webhooks/${f.webhookId}/test`, form: {} }),
  },
  {
    route: "POST /console/webhooks/{webhookId}/retry-failed",
    need: "editor",
    ok: 303,
    request: (f) => ({
      method: "POST",
      path: `/console/webhooks/${f.webhookId}/retry-failed`,
      form: {},
    }),
  },
  {
    route: "POST /console/webhooks/{webhookId}/delete",
    need: "editor",
    ok: 303,
    fresh: true,
    request: (f) => ({ method: "POST", path: `/console/webhooks/${f.webhookId}/delete`, form: {} }),
  },
  {
    route: "GET /console/deliveries/{deliveryId}",
    need: "editor",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/deliveries/${f.deliveryId}` }),
  },
  {
    route: "POST /console/deliveries/{deliveryId}/retry",
    need: "editor",
    ok: 303,
    request: (f) => ({
      method: "POST",
      path: `/console/deliveries/${f.deliveryId}/retry`,
      form: {},
    }),
  },
  {
    route: "GET /console/audit",
    need: "admin",
    ok: 200,
    request: () => ({ method: "GET", path: "/console/audit" }),
  },
  {
    route: "GET /console/databases",
    need: "viewer",
    list: true,
    ok: 200,
    request: () => ({ method: "GET", path: "/console/databases" }),
  },
  {
    route: "GET /console/databases/{dbId}",
    need: "viewer",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/databases/${f.databaseId}` }),
  },
  {
    route: "GET /console/databases/{dbId}/members",
    need: "owner",
    ok: 200,
    request: (f) => ({ method: "GET", path: `/console/databases/${f.databaseId}/members` }),
  },
  {
    route: "POST /console/databases/{dbId}/members",
    need: "owner",
    ok: 200,
    request: (f) => ({
      method: "POST",
      path: `/console/databases/${f.databaseId}/members`,
      form: { email: newEmail(), role: "viewer" },
    }),
  },
  {
    route: "POST /console/databases/{dbId}/members/{personId}/role",
    need: "owner",
    ok: 404,
    request: (f) => ({
      method: "POST",
      path: `/console/databases/${f.databaseId}/members/nobody/role`,
      form: { role: "viewer" },
    }),
  },
  {
    route: "POST /console/databases/{dbId}/members/{personId}/remove",
    need: "owner",
    ok: 404,
    request: (f) => ({
      method: "POST",
      path: `/console/databases/${f.databaseId}/members/nobody/remove`,
      form: {},
    }),
  },
];

const RANK = { viewer: 1, editor: 2, owner: 3 } as const;
const ROLE: Record<Persona, keyof typeof RANK | null> = {
  owner: "owner",
  editor: "editor",
  viewer: "viewer",
  nonMember: null,
  removed: null,
  expired: "owner",
  noScope: "owner",
};

/** What a caller should get: a status and, for errors, a code. */
export interface Expected {
  status: number;
  code?: string;
}

/** What `persona` should get from `c` over the API (`console`: in the console). */
export function expected(c: RouteCase, persona: Persona, console = false): Expected {
  if (console) {
    // Pages answer HTML: the status tells. A session carries every scope (but the person behind
    // the scopeless token is no instance admin).
    const asOwner = persona === "noScope" && c.need !== "admin";
    const { status } = expected(c, asOwner ? "owner" : persona);
    if (persona !== "expired") return { status };
    const { method, path } = c.request(DUMMY);
    // No session: the front page is the sign-in page; other pages send there; actions 401.
    return { status: path === "/console" ? 200 : method === "GET" ? 303 : 401 };
  }
  const ok = { status: c.ok, ...(c.okCode ? { code: c.okCode } : {}) };
  if (persona === "expired") return { status: 401, code: "unauthorized" };
  if (persona === "noScope" && (c.need !== "person" || c.scoped)) {
    return c.need === "admin"
      ? { status: 403, code: "forbidden" }
      : { status: 403, code: "insufficient_scope" };
  }
  if (c.need === "person") return ok;
  if (c.need === "admin") return persona === "owner" ? ok : { status: 403, code: "forbidden" };
  const role = ROLE[persona];
  if (role === null) {
    return c.list ? ok : { status: c.missing ?? 404, ...(c.notFound ? { code: c.notFound } : {}) };
  }
  return RANK[role] >= RANK[c.need] ? ok : { status: 403, code: "forbidden" };
}

const DUMMY: Fixture = {
  databaseId: "",
  formId: "",
  recordId: "",
  webhookId: "",
  deliveryId: "",
  quarantineId: "",
  tokenId: "",
};

/** The instance, its callers' tokens and console clients, and how to make fresh resources. */
export interface Matrix {
  inst: TestInstance;
  tokens: Record<Persona, string>;
  consoles: Record<Persona, ConsoleClient>;
  csrf: Record<Persona, string | null>;
  shared: Fixture;
  fresh(): Promise<Fixture>;
  close(): Promise<void>;
}

/** Starts an instance with a database, its resources, and one caller of each kind. */
export async function startMatrix(): Promise<Matrix> {
  const inst = await startInstance({ SEALPOST_WEBHOOKS_REQUEST_TIMEOUT_SECONDS: "2" });
  const owner = inst.credentials.ownerToken;
  const { db } = await vaultForm(inst, "Matrix", FIELDS);
  const ports = inst.server.vault!.store;
  const fresh = async (): Promise<Fixture> => {
    const form = await call(`${inst.url}/vault/forms`, {
      method: "POST",
      token: owner,
      json: { databaseId: db.id, title: "Matrix", fields: FIELDS, publish: true },
    });
    const formId = form.body.formId;
    const record = await call(`${inst.url}/vault/forms/${formId}/records`, {
      method: "POST",
      token: owner,
      json: { values: { name: "Ada" } },
    });
    const webhook = await call(`${inst.url}/owner/forms/${formId}/webhooks`, {
      method: "POST",
      token: owner,
      json: { url: HOOK },
    });
    const submissionId = crypto.getRandomValues(new Uint8Array(16)).toHex();
    await ports.quarantine.save(
      {
        id: `${submissionId}.1`,
        databaseId: db.id,
        fingerprint: db.fingerprint,
        submissionId,
        version: 1,
        formId,
        formVersion: 1,
        code: "invalid_values",
        reason: "a test row",
        receivedAt: new Date().toISOString(),
      },
      new Uint8Array(64),
      null,
    );
    return {
      databaseId: db.id,
      formId,
      recordId: record.body._recordId,
      webhookId: webhook.body.id,
      deliveryId: "",
      quarantineId: `${submissionId}.1`,
      tokenId: (await addPerson(inst)).tokenId,
    };
  };
  const shared = await fresh();
  // A delivery of the shared webhook: made by a record saved after the webhook was.
  await call(`${inst.url}/vault/forms/${shared.formId}/records`, {
    method: "POST",
    token: owner,
    json: { values: { name: "Cy" } },
  });
  for (let i = 0; i < 100 && !shared.deliveryId; i++) {
    const page = await call(`${inst.url}/owner/webhooks/${shared.webhookId}/deliveries`, {
      token: owner,
    });
    shared.deliveryId = page.body.items?.[0]?.id ?? "";
    if (!shared.deliveryId) await new Promise((r) => setTimeout(r, 50));
  }
  const member = (role: "owner" | "editor" | "viewer") => ({ databaseId: db.id, role });
  const editor = await addPerson(inst, member("editor"));
  const viewer = await addPerson(inst, member("viewer"));
  const nonMember = await addPerson(inst);
  const removed = await addPerson(inst, member("editor"));
  await ports.memberships.remove(db.id, removed.personId);
  const expired = await addPerson(inst, { ...member("owner"), expiresAt: "2020-01-01T00:00:00Z" });
  const noScope = await addPerson(inst, { ...member("owner"), scopes: ["relay:queue"] });
  const tokens: Record<Persona, string> = {
    owner,
    editor: editor.token,
    viewer: viewer.token,
    nonMember: nonMember.token,
    removed: removed.token,
    expired: expired.token,
    noScope: noScope.token,
  };
  const personIds: Record<Persona, string> = {
    owner: inst.credentials.userId,
    editor: editor.personId,
    viewer: viewer.personId,
    nonMember: nonMember.personId,
    removed: removed.personId,
    expired: expired.personId,
    noScope: noScope.personId,
  };
  const consoles = {} as Record<Persona, ConsoleClient>;
  const csrf = {} as Record<Persona, string | null>;
  for (const persona of PERSONAS) {
    const client = new ConsoleClient(inst.url);
    consoles[persona] = client;
    if (persona === "expired") {
      const page = await client.page("/console");
      csrf[persona] = csrfOf(page);
      continue;
    }
    csrf[persona] = await client.signIn(await withPassword(ports.people, personIds[persona]));
  }
  return { inst, tokens, consoles, csrf, shared, fresh, close: () => inst.close() };
}

/** The status and error code a caller got. */
export interface Got {
  status: number;
  code?: string;
}

/** Calls `c` as `persona` over the API. */
export async function callApi(m: Matrix, c: RouteCase, persona: Persona, f: Fixture): Promise<Got> {
  const { method, path, json } = c.request(f);
  const res = await call(`${m.inst.url}${path}`, { method, token: m.tokens[persona], json });
  return { status: res.status, ...(res.body?.error?.code ? { code: res.body.error.code } : {}) };
}

/** Calls `c` as `persona` in the console. */
export async function callConsole(
  m: Matrix,
  c: RouteCase,
  persona: Persona,
  f: Fixture,
): Promise<Got> {
  const { method, path, form } = c.request(f);
  const client = m.consoles[persona];
  const res = method === "GET"
    ? await client.request(path)
    : await client.post(path, form ?? {}, m.csrf[persona]);
  await res.body?.cancel();
  return { status: res.status };
}

/** Whether `got` is what was `want`ed (a code only when one is expected). */
export function matches(got: Got, want: Expected): boolean {
  return got.status === want.status && (want.code === undefined || got.code === want.code);
}
