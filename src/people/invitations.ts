/**
 * Invitations to a database: an owner invites an email with a role; the invitation is a
 * one-time link (an `invite` ticket, 7 days, src/people/one_time_links.ts) shown once to the
 * owner and handed to the {@link Mailer} (which sends nothing until mail is configured). Whoever
 * opens the link accepts it at `/console/invitations`: a new person with a name and a password
 * (which makes their account), or the person with that email, signed in. Accepting makes the
 * membership; a link works once.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { actionBy, type AuditLog } from "../audit/sink.ts";
import { Conflict, Forbidden, Invalid, NotFound } from "../errors/index.ts";
import type { VaultPorts } from "../store/ports/bundle.ts";
import type { Role } from "../store/ports/memberships.ts";
import type { Person } from "../store/ports/people.ts";
import type { Ticket } from "../store/ports/tickets.ts";
import type { Mailer } from "./mailer.ts";
import type { Members } from "./members.ts";
import { invitationLink, issueLink } from "./one_time_links.ts";
import { consumeTicket, returnTicket } from "./tickets.ts";
import { checkPassword, hashPassword } from "./password.ts";
import { createPerson, NAME_MAX, normaliseEmail } from "./people.ts";

/** What the invitations use. */
export interface InvitationsDeps {
  store: Pick<VaultPorts, "people" | "memberships" | "tickets" | "vaultDatabases">;
  members: Pick<Members, "ownedDatabase">;
  mailer: Mailer;
  audit: AuditLog;
}

/** An invitation made: its link (shown once), for whom, what role, until when (epoch ms). */
export interface Invitation {
  link: string;
  email: string;
  role: Role;
  expiresAt: number;
  /** Whether the mailer took it (false when sending failed; the link still works). */
  mailed: boolean;
}

/** Who accepts: the signed-in person, or a new person with a name and a password. */
export type Acceptor = { person: Person } | { name: string; password: string };

/** An accepted invitation: the database joined, by whom, with what role. */
export interface Joined {
  databaseId: string;
  person: Person;
  role: Role;
  /** True when accepting made the person's account. */
  created: boolean;
}

/** The 404 of a link that is unknown, used, expired or cut short. */
function invitationNotFound(): NotFound {
  return new NotFound(
    "invitation_not_found",
    "This invitation link does not work: it was used already, it expired (links last 7 days), " +
      "or it was copied incompletely. Ask for a new one.",
  );
}

/** What an invite ticket holds. */
interface InviteData {
  databaseId: string;
  email: string;
  role: Role;
}

function inviteData(ticket: Ticket): InviteData {
  const { databaseId, email, role } = ticket.data as Partial<InviteData>;
  if (typeof databaseId !== "string" || typeof email !== "string" || typeof role !== "string") {
    throw invitationNotFound();
  }
  return { databaseId, email, role };
}

/**
 * The invitations of an instance.
 *
 * @example
 * ```ts
 * const invitations = new Invitations({ store, members, mailer: noMail, audit });
 * const { link } = await invitations.invite(owner, dbId, "ada@example.org", "editor", base);
 * await invitations.accept(secret, { name: "Ada", password: "correct horse battery" });
 * ```
 */
export class Invitations {
  constructor(private deps: InvitationsDeps) {}

  /** Invites `email` to `dbId` with `role` (an owner of it only): the link, shown once. */
  async invite(
    by: PersonPrincipal,
    dbId: string,
    email: string,
    role: Role,
    baseUrl: string,
  ): Promise<Invitation> {
    const db = await this.deps.members.ownedDatabase(by, dbId);
    const address = normaliseEmail(email);
    const { store } = this.deps;
    const existing = await store.people.byEmail(address);
    if (existing && await store.memberships.get(dbId, existing.id)) {
      throw new Conflict("already_member", `${address} is a member of this database already`);
    }
    const { secret, expiresAt } = await issueLink(store.tickets, "invite", existing?.id ?? null, {
      databaseId: dbId,
      email: address,
      role,
      invitedBy: by.personId,
    });
    const link = invitationLink(baseUrl, secret);
    let mailed = true;
    try {
      await this.deps.mailer.send({
        to: address,
        subject: `Invitation to the database “${db.name}” on Sealpost`,
        text: `You are invited to the database “${db.name}” as ${role}. Open this link ` +
          `within 7 days to accept (it works once):\n\n${link}\n`,
      });
    } catch {
      mailed = false;
    }
    this.deps.audit.record(actionBy(by, "member_invited", {
      databaseId: dbId,
      ...(existing ? { target: { kind: "person", id: existing.id } } : {}),
      detail: { role },
    }));
    return { link, email: address, role, expiresAt, mailed };
  }

  /**
   * Accepts the invitation of `secret` (once): by the signed-in person with the invited email,
   * or by a new person (name and password; refused when the email has an account: sign in
   * first). A refused acceptor leaves the link working for the right one.
   */
  async accept(secret: string, who: Acceptor): Promise<Joined> {
    const fresh = "password" in who ? checkNewPerson(who) : null;
    const { store } = this.deps;
    const ticket = await consumeTicket(store.tickets, secret, "invite");
    if (!ticket) throw invitationNotFound();
    const invite = inviteData(ticket);
    let person: Person;
    try {
      if ("person" in who) {
        if (who.person.email !== invite.email) {
          throw new Forbidden(
            "invitation_for_another",
            `This invitation is for ${invite.email}; you are signed in as ${who.person.email}`,
          );
        }
        person = who.person;
      } else {
        if (await store.people.byEmail(invite.email)) {
          throw new Conflict(
            "sign_in_first",
            `${invite.email} has an account here already: sign in first, then open the ` +
              "invitation link again",
          );
        }
        person = await createPerson(
          store.people,
          { email: invite.email, name: fresh!.name, instanceAdmin: false },
          await hashPassword(fresh!.password),
        );
      }
    } catch (err) {
      await returnTicket(store.tickets, secret, ticket);
      throw err;
    }
    if (!(await store.vaultDatabases.get(invite.databaseId))) throw invitationNotFound();
    if (!(await store.memberships.get(invite.databaseId, person.id))) {
      const since = new Date().toISOString();
      const { databaseId, role } = invite;
      await store.memberships.put({ databaseId, personId: person.id, role, since });
    }
    const self = { personId: person.id, tokenId: null };
    if (fresh) {
      this.deps.audit.record(actionBy(self, "person_created", {
        target: { kind: "person", id: person.id },
        detail: { invited: true },
      }));
    }
    this.deps.audit.record(actionBy(self, "member_joined", {
      databaseId: invite.databaseId,
      target: { kind: "person", id: person.id },
      detail: { role: invite.role },
    }));
    return { databaseId: invite.databaseId, person, role: invite.role, created: !!fresh };
  }
}

/** A new person's name and password, checked before the link is taken. */
function checkNewPerson(who: { name: string; password: string }) {
  const name = who.name.trim();
  if (!name || name.length > NAME_MAX) {
    throw new Invalid("invalid_name", `Give your name (1 to ${NAME_MAX} characters)`, "name");
  }
  checkPassword(who.password);
  return { name, password: who.password };
}
