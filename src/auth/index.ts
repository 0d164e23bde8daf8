/**
 * Authentication and authorization: who a request stands for (`principals.ts`), tokens
 * (`tokens.ts`: owner and admin, `edit_tokens.ts`: a submission's edit token,
 * `static_token.ts`: a token set in the configuration, `metrics.token`), the rules
 * (`rules.ts`: a principal of the right kind, and the one ownership check), and the route
 * middleware that apply them (`middleware.ts`). Console sessions (src/console) are made from
 * an owner principal and stand for one.
 *
 * @module
 */
export type { AdminPrincipal, OwnerPrincipal, PersonPrincipal, Principal } from "./principals.ts";
export { authenticate, mintToken, principalOfToken, type TokenSource } from "./tokens.ts";
export { EditTokens } from "./edit_tokens.ts";
export { assertOwns, authorize, bearerOf } from "./rules.ts";
export {
  type AdminEnv,
  type AuthEnv,
  editTokenOf,
  type OwnerEnv,
  type PersonEnv,
  requireAdmin,
  requireOwner,
  requirePerson,
} from "./middleware.ts";
