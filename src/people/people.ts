/**
 * The instance's people, as an instance admin manages them: adding a person (by email, with a
 * display name, possibly an instance admin) hands back a one-time set-password link
 * (src/people/one_time_links.ts) and never a password; listing them. Emails are the login
 * names: trimmed, lowercase, unique.
 *
 * @module
 */
import type { PersonPrincipal } from "../auth/principals.ts";
import { actionBy, type AuditLog } from "../audit/sink.ts";
import { Conflict, Invalid } from "../errors/index.ts";
import type { PeoplePort, Person } from "../store/ports/people.ts";
import type { TicketsPort } from "../store/ports/tickets.ts";
import type { Access } from "./access.ts";
import { issueLink, setPasswordLink } from "./one_time_links.ts";

/** Most characters of an email address (RFC 5321's path limit). */
export const EMAIL_MAX = 254;
/** Most characters of a display name. */
export const NAME_MAX = 200;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * `email` as a login name: trimmed, lowercase; an `Invalid` naming the field when it is no
 * address.
 *
 * @example
 * ```ts
 * normaliseEmail(" Ada@Example.org "); // "ada@example.org"
 * ```
 */
export function normaliseEmail(email: string): string {
  const out = email.trim().toLowerCase();
  if (out.length > EMAIL_MAX || !EMAIL_RE.test(out)) {
    throw new Invalid("invalid_email", `Invalid email "${email.slice(0, 64)}"`, "email");
  }
  return out;
}

/** A new person's details. */
export interface NewPerson {
  email: string;
  name: string;
  instanceAdmin: boolean;
}

/** A person and their set-password link (shown once), with its expiry (epoch ms). */
export interface AddedPerson {
  person: Person;
  link: string;
  expiresAt: number;
}

/** What the people service uses. */
export interface PeopleDeps {
  people: PeoplePort;
  tickets: Pick<TicketsPort, "save">;
  access: Pick<Access, "admin">;
  audit: AuditLog;
}

/**
 * Stores a new person (email checked, unique) without a password; an `email_taken` conflict
 * when the email is someone's.
 *
 * @example
 * ```ts
 * const person = await createPerson(people, { email, name, instanceAdmin: false });
 * ```
 */
export async function createPerson(
  people: Pick<PeoplePort, "create">,
  input: NewPerson,
  passwordHash: string | null = null,
): Promise<Person> {
  const now = new Date().toISOString();
  const person: Person = {
    id: crypto.getRandomValues(new Uint8Array(12)).toHex(),
    email: normaliseEmail(input.email),
    name: input.name.trim().slice(0, NAME_MAX),
    passwordHash,
    instanceAdmin: input.instanceAdmin,
    createdAt: now,
    updatedAt: now,
  };
  if (await people.create(person) === "email_taken") {
    throw new Conflict("email_taken", `Someone has the email "${person.email}" already`, "email");
  }
  return person;
}

/**
 * The people an instance admin manages.
 *
 * @example
 * ```ts
 * const people = new People({ people: ports.people, tickets: ports.tickets, access, audit });
 * const { person, link } = await people.add(admin, { email, name: "Ada", instanceAdmin: false }, base);
 * ```
 */
export class People {
  constructor(private deps: PeopleDeps) {}

  /** Adds a person (instance admin with the `admin` scope only); their set-password link. */
  async add(by: PersonPrincipal, input: NewPerson, baseUrl: string): Promise<AddedPerson> {
    this.deps.access.admin(by);
    const person = await createPerson(this.deps.people, input);
    const { secret, expiresAt } = await issueLink(
      this.deps.tickets,
      "set_password",
      person.id,
      {},
    );
    this.deps.audit.record(actionBy(by, "person_created", {
      target: { kind: "person", id: person.id },
      detail: { instanceAdmin: person.instanceAdmin },
    }));
    return { person, link: setPasswordLink(baseUrl, secret), expiresAt };
  }

  /** Every person, by email (instance admin with the `admin` scope only). */
  async list(by: PersonPrincipal): Promise<Person[]> {
    this.deps.access.admin(by);
    return await this.deps.people.list();
  }
}

/**
 * A set-password link for person `personId` while they have no password (`init` prints the
 * first person's); null once they have one, or when there is no such person.
 *
 * @example
 * ```ts
 * const link = await passwordLinkOf(ports, first.personId, baseUrl);
 * ```
 */
export async function passwordLinkOf(
  ports: { people: Pick<PeoplePort, "get">; tickets: Pick<TicketsPort, "save"> },
  personId: string,
  baseUrl: string,
): Promise<{ link: string; expiresAt: number } | null> {
  const person = await ports.people.get(personId);
  if (!person || person.passwordHash !== null) return null;
  const { secret, expiresAt } = await issueLink(ports.tickets, "set_password", personId, {});
  return { link: setPasswordLink(baseUrl, secret), expiresAt };
}
