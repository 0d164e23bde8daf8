/**
 * What the people API's resources share: the router they add their routes to (built in
 * `index.ts`, every route behind a person's token), the people services, the public base URL
 * the links are made on, and the JSON body middleware.
 *
 * @module
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { PersonEnv } from "../../auth/index.ts";
import type { PeopleServices } from "../index.ts";

/** The people API a resource adds its routes to. */
export interface PeopleApi {
  app: OpenAPIHono<PersonEnv>;
  services: PeopleServices;
  /** The public base URL of the console (one-time links point there). */
  baseUrl: () => string;
  /** The middleware of routes that take a JSON body. */
  body: MiddlewareHandler[];
}
