/**
 * What every feature's routes share for the OpenAPI document: the error schema, response
 * helpers, and a router whose validation failures become the JSON error shape.
 *
 * @module
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
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

/** An error response for `createRoute`. */
export function errorContent(description: string) {
  return jsonContent(ErrorSchema, description);
}

/** A sub-app whose zod validation failures become 400s in the JSON error shape. */
export function newRouter<E extends Env = Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });
}
