/**
 * The first person at `sealpost init`: `init`'s user becomes the first person, an instance
 * admin (src/people/bootstrap.ts), with the email `init --email` gives (a later `init --email`
 * changes it); while they have no password, each `init` prints a new one-time set-password
 * link for them (7 days; an earlier link keeps working until it is used or expires).
 *
 * @module
 */
import { type Config, publicBaseUrl } from "../config/index.ts";
import { Conflict } from "../errors/index.ts";
import { bootstrapPeople } from "../people/bootstrap.ts";
import { normaliseEmail, passwordLinkOf } from "../people/people.ts";
import { readCredentials } from "../store/data_dir.ts";
import { openConfiguredStore } from "../store/open.ts";

/** The first person as `init` reports them. */
export interface FirstPerson {
  personId: string;
  email: string;
  /** A set-password link (shown once), or null when they have set their password. */
  setPasswordLink: string | null;
  /** When the link expires (ISO time), or null. */
  expiresAt: string | null;
}

/**
 * Makes (or finds) the first person of an initialised data dir and a set-password link for
 * them; null for a relay-only instance or one that joined a store another process initialised
 * (its data dir has no credentials).
 *
 * @example
 * ```ts
 * const first = await firstPerson(config, "ada@example.org");
 * console.log(first?.setPasswordLink);
 * ```
 */
export async function firstPerson(config: Config, email?: string): Promise<FirstPerson | null> {
  if (config.server.role === "relay") return null;
  const credentials = await readCredentials(config.data_dir);
  if (!credentials) return null;
  const address = email === undefined ? undefined : normaliseEmail(email);
  const store = await openConfiguredStore(config);
  try {
    const { vault, relay } = store.ports;
    const baseUrl = publicBaseUrl(config);
    const first = await bootstrapPeople({
      vault,
      identity: relay.identity,
      first: credentials,
      email: address,
      host: new URL(baseUrl).hostname,
    });
    if (address) {
      const changed = await vault.people.update(first.personId, (p) => ({
        ...p,
        email: address,
        updatedAt: p.email === address ? p.updatedAt : new Date().toISOString(),
      }));
      if (changed === "email_taken") {
        throw new Conflict("email_taken", `Someone else has the email "${address}" already`);
      }
    }
    const person = (await vault.people.get(first.personId))!;
    const link = await passwordLinkOf(vault, person.id, baseUrl);
    return {
      personId: person.id,
      email: person.email,
      setPasswordLink: link?.link ?? null,
      expiresAt: link ? new Date(link.expiresAt).toISOString() : null,
    };
  } finally {
    await store.close();
  }
}
