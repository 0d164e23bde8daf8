/**
 * The people side of the vault (issue 29), its services built over the vault: the instance's
 * people (`people.ts`), each database's members (`members.ts`) and invitations
 * (`invitations.ts`); access checks (`access.ts`), tokens (`person_tokens.ts`), one-time links
 * (`one_time_links.ts`), passwords and second factors beside them. The HTTP API is `api/`.
 *
 * @module
 */
import type { Vault } from "../vault/index.ts";
import { Invitations } from "./invitations.ts";
import { type Mailer, noMail } from "./mailer.ts";
import { Members } from "./members.ts";
import type { PersonTokens } from "./tokens.ts";
import { People } from "./people.ts";

/** The people services of one vault. */
export interface PeopleServices {
  people: People;
  members: Members;
  invitations: Invitations;
}

/**
 * The people services over `vault`, ending removed members' tokens through `tokens` (at the
 * relay too), mailing through `mailer` (none by default).
 *
 * @example
 * ```ts
 * const { members, invitations } = peopleServices(vault, apiTokens);
 * ```
 */
export function peopleServices(
  vault: Vault,
  tokens: Pick<PersonTokens, "revokeAllOf">,
  mailer: Mailer = noMail,
): PeopleServices {
  const { store, access, audit } = vault;
  const members = new Members({
    store,
    access,
    audit,
    database: (gate, dbId) => vault.database(gate, dbId),
    revokeTokens: (personId) => tokens.revokeAllOf(personId),
  });
  return {
    people: new People({ people: store.people, tickets: store.tickets, access, audit }),
    members,
    invitations: new Invitations({ store, members, mailer, audit }),
  };
}
