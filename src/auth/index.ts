/**
 * Authentication and authorization: who a request stands for (`principals.ts`), tokens
 * (`tokens.ts`: owner and admin, `edit_tokens.ts`: a submission's edit token,
 * `static_token.ts`: a token set in the configuration, `metrics.token`), the rules
 * (`rules.ts`: a principal of the right kind, and the one ownership check), and the route
 * middleware that apply them (`middleware.ts`). Vault, webhook and console routes stand for a
 * person (`PersonPrincipal`; person tokens are src/people/person_tokens.ts, what a person may do
 * on a database src/people/access.ts); console sessions (src/console) stand for one.
 *
 * @module
 */
export type { AdminPrincipal, OwnerPrincipal, PersonPrincipal, Principal } from "./principals.ts";
export { authenticate, mintToken, type TokenSource } from "./tokens.ts";
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
