/**
 * What every feature's routes share for the OpenAPI document: the error schema, the
 * vocabulary of route declarations (JSON bodies and responses, the standard error responses,
 * owner and admin routes with their tag, security and missing-token responses), and a router whose validation failures
 * become the JSON error shape.
 *
 * @module
 */
import { OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { validationError } from "../errors/index.ts";

/** The JSON error body (see `errors.ts`). */
export const ErrorSchema = z.object({
  error: z.object({
    code: z.string().openapi({ example: "invalid_request" }),
    message: z.string(),
    field: z.string().optional(),
  }),
}).openapi("Error");

/**
 * A JSON response (or request body) of `schema` for `createRoute`.
 *
 * @example
 * ```ts
 * responses: { 200: jsonContent(ReceiptSchema, "Stored") }
 * ```
 */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

/**
 * A list answer, `{ items }`, of `item`.
 *
 * @example
 * ```ts
 * responses: { 200: jsonContent(itemsOf(FormSchema), "Forms") }
 * ```
 */
export function itemsOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item) });
}

/**
 * A page of a longer list of `item`: `{ items, nextCursor }`, `nextCursor` null on the last.
 *
 * @example
 * ```ts
 * responses: { 200: jsonContent(pageOf(RecordSchema), "Records") }
 * ```
 */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/**
 * A query parameter holding a whole number from `min` to `max`, written in decimal digits
 * only: `z.coerce.number()` would also take `0x10`, `1e3` or blanks.
 *
 * @example
 * ```ts
 * query: z.object({ limit: intQuery(1, 500).default(100) })
 * ```
 */
export function intQuery(
  min: number,
  max: number,
  message = `Must be a whole number from ${min} to ${max}`,
) {
  return z.string().regex(/^[0-9]{1,16}$/, message).transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message))
    .openapi({ type: "integer", minimum: min, maximum: max });
}

/**
 * A required JSON request body of `schema` for `createRoute`.
 *
 * @example
 * ```ts
 * request: { body: requiredJson(EnvelopeSchema, "The envelope") }
 * ```
 */
export function requiredJson<T extends z.ZodType>(schema: T, description: string) {
  return { ...jsonContent(schema, description), required: true };
}

/**
 * An error response for `createRoute`.
 *
 * @example
 * ```ts
 * responses: { 404: errorContent("Unknown form") }
 * ```
 */
export function errorContent(description: string) {
  return jsonContent(ErrorSchema, description);
}

/**
 * The error responses of a route, from the description of each status.
 *
 * @example
 * ```ts
 * responses: {
 *   200: jsonContent(ReceiptSchema, "Stored"),
 *   ...errors({ 400: "Malformed", 401: "No owner token", 429: "Rate limited" }),
 * }
 * ```
 */
export function errors<const T extends Record<number, string>>(
  descriptions: T,
): { [Status in keyof T]: ReturnType<typeof errorContent> } {
  const entries = Object.entries(descriptions).map((
    [status, text],
  ) => [status, errorContent(text)]);
  return Object.fromEntries(entries);
}

/** The owner token security requirement of the OpenAPI document (what `requireOwner` checks). */
export const ownerSecurity = [{ ownerToken: [] }];

/** The admin token security requirement of the OpenAPI document (what `requireAdmin` checks). */
export const adminSecurity = [{ adminToken: [] }];

/** A route declaration without the tag and security its helper adds. */
type Untagged = Omit<RouteConfig, "path" | "tags" | "security">;

/** What every route that takes the owner token may answer for want of one. */
const OWNER_ERRORS = errors({ 401: "No owner token" });

/** What every route that takes the admin token may answer for want of one. */
const ADMIN_ERRORS = errors({ 401: "No admin token", 403: "Not an admin token" });

/**
 * The spec of a route that takes the owner token, under the OpenAPI tag `tag`, for
 * `createRoute`: the tag first, the owner security after the summary and description, and the
 * 401 of a missing or refused token among the responses.
 *
 * @example
 * ```ts
 * const getMe = createRoute(forOwner("owner", {
 *   method: "get",
 *   path: "/owner/me",
 *   summary: "The token's user and databases",
 *   responses: { 200: jsonContent(MeSchema, "The user") },
 * }));
 * ```
 */
export function forOwner<P extends string, R extends Untagged & { path: P }>(
  tag: string,
  route: R,
) {
  const responses = { ...route.responses, ...OWNER_ERRORS };
  return { tags: [tag], ...route, responses, security: ownerSecurity };
}

/**
 * The spec of a route that takes the admin token, under the OpenAPI tag `admin`, for
 * `createRoute`, with the 401 and 403 of a missing or refused token among the responses.
 *
 * @example
 * ```ts
 * const getInstance = createRoute(forAdmin({
 *   method: "get",
 *   path: "/admin/instance",
 *   summary: "The instance's own view of itself",
 *   responses: { 200: jsonContent(InstanceSchema, "The instance") },
 * }));
 * ```
 */
export function forAdmin<P extends string, R extends Untagged & { path: P }>(route: R) {
  const responses = { ...route.responses, ...ADMIN_ERRORS };
  return { tags: ["admin"], ...route, responses, security: adminSecurity };
}

/** A sub-app whose zod validation failures become 400s in the JSON error shape. */
export function newRouter<E extends Env = Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}
