/**
 * Passkeys (WebAuthn through `@simplewebauthn/server`): the options a browser needs to create
 * or use one, and the checks of what it sends back. Credentials are discoverable (resident key
 * required), so "Sign in with a passkey" asks for no email: the authentication options list no
 * credentials and the browser offers the person's passkeys for this site. User verification
 * is preferred, not required (a security key without a PIN still counts as one factor).
 * Attestation is not asked for: any authenticator may register.
 *
 * The relying party is the instance's public address ({@link relyingParty}): its host name is
 * the RP id and its origin the only accepted origin, so a passkey works on that address only
 * (a browser allows WebAuthn on `https://` and on `http://localhost`).
 *
 * The challenge of each ceremony is the caller's to keep (a `webauthn` ticket) and to hand
 * back once to the matching verify function.
 *
 * @module
 */
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { Invalid } from "../errors/index.ts";
import type { Person } from "../store/ports/people.ts";
import type { Passkey, SignInFactorsPort } from "../store/ports/sign_in_factors.ts";

export type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
};

/** The relying party: who the passkeys are for. */
export interface RelyingParty {
  /** The RP id: the host name of the public address. */
  id: string;
  /** The name authenticators show. */
  name: string;
  /** The one origin ceremonies may come from. */
  origin: string;
}

/** Milliseconds a browser gives the person to answer a ceremony. */
const TIMEOUT_MS = 5 * 60_000;

/**
 * The relying party of the instance whose public base URL is `publicBaseUrl` (config
 * `base_url`, or `publicBaseUrl(config, port)` of src/config).
 *
 * @example
 * ```ts
 * relyingParty("https://forms.example.org"); // { id: "forms.example.org", name: "Sealpost", origin: "https://forms.example.org" }
 * ```
 */
export function relyingParty(publicBaseUrl: string): RelyingParty {
  const url = new URL(publicBaseUrl);
  return { id: url.hostname.replace(/^\[|\]$/g, ""), name: "Sealpost", origin: url.origin };
}

/**
 * Options for `navigator.credentials.create()` (through `@simplewebauthn/browser`'s
 * `startRegistration`) to register a passkey for `person`; `existing` (their passkeys) are
 * excluded, so one authenticator is not registered twice. Keep `challenge` for
 * {@link verifyPasskeyRegistration}.
 *
 * @example
 * ```ts
 * const options = await passkeyRegistrationOptions(rp, person, await factors.list(person.id));
 * await tickets.save(idHash, { kind: "webauthn", personId: person.id, data: { challenge: options.challenge }, expiresAt });
 * ```
 */
export async function passkeyRegistrationOptions(
  rp: RelyingParty,
  person: Pick<Person, "id" | "email" | "name">,
  existing: readonly Passkey[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: person.email,
    userDisplayName: person.name || person.email,
    userID: new TextEncoder().encode(person.id),
    timeout: TIMEOUT_MS,
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
}

/**
 * Checks a registration the browser sent (for the challenge kept from
 * {@link passkeyRegistrationOptions}, of this relying party) and answers the passkey to store
 * with `factors.add`. Throws `Invalid` (`passkey_rejected`) when it does not verify.
 *
 * @example
 * ```ts
 * const passkey = await verifyPasskeyRegistration(rp, body, ticket.data.challenge, person.id, "Laptop");
 * if (await factors.add(passkey) === "taken") throw new Conflict("passkey_taken", "…");
 * ```
 */
export async function verifyPasskeyRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  expectedChallenge: string,
  personId: string,
  name: string,
  now: Date = new Date(),
): Promise<Passkey> {
  const result = await verifyRegistrationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch((err) => {
    throw rejected(err);
  });
  if (!result.verified) throw rejected(null);
  const info = result.registrationInfo;
  return {
    credentialId: info.credential.id,
    personId,
    publicKey: isoBase64URL.fromBuffer(info.credential.publicKey),
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
    name: name.trim().slice(0, 100) || "Passkey",
    createdAt: now.toISOString(),
    lastUsedAt: null,
  };
}

/**
 * Options for `navigator.credentials.get()` (`startAuthentication`) to sign in with any
 * passkey of this site (discoverable: no credential listed). Keep `challenge` for
 * {@link verifyPasskeyAuthentication}.
 *
 * @example
 * ```ts
 * const options = await passkeyAuthenticationOptions(rp);
 * ```
 */
export async function passkeyAuthenticationOptions(
  rp: RelyingParty,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: [],
    userVerification: "preferred",
    timeout: TIMEOUT_MS,
  });
}

/**
 * Checks a sign-in the browser sent: the passkey it names must be registered (to the person
 * its user handle names, when it gives one), its signature must verify for the kept challenge,
 * and its counter must go up (`factors.updateCounter`, atomic: a replay or a cloned
 * authenticator's older counter is refused; an authenticator that keeps no counter, always 0,
 * relies on the challenge being used once, as every ceremony does). Answers the passkey as updated (its `personId`
 * is who signs in), or null when any of that fails.
 *
 * @example
 * ```ts
 * const passkey = await verifyPasskeyAuthentication(rp, body, ticket.data.challenge, factors);
 * if (!passkey) return signInFailed();
 * ```
 */
export async function verifyPasskeyAuthentication(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  expectedChallenge: string,
  factors: SignInFactorsPort,
  now: Date = new Date(),
): Promise<Passkey | null> {
  const stored = typeof response?.id === "string"
    ? await factors.byCredentialId(response.id)
    : null;
  if (!stored) return null;
  const handle = response.response?.userHandle;
  if (handle && handle !== isoBase64URL.fromUTF8String(stored.personId)) return null;
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: stored.credentialId,
      publicKey: isoBase64URL.toBuffer(stored.publicKey),
      counter: stored.counter,
      transports: stored.transports,
    },
    requireUserVerification: false,
  }).catch(() => null);
  if (!result?.verified) return null;
  const counter = result.authenticationInfo.newCounter;
  const at = now.toISOString();
  if (!await factors.updateCounter(stored.credentialId, counter, at)) return null;
  return { ...stored, counter, lastUsedAt: at };
}

function rejected(cause: unknown): Invalid {
  const reason = cause instanceof Error ? `: ${cause.message}` : "";
  return new Invalid("passkey_rejected", `The passkey could not be registered${reason}`);
}
