import assert from "node:assert/strict";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { Invalid } from "../../src/errors/index.ts";
import {
  passkeyAuthenticationOptions,
  passkeyRegistrationOptions,
  relyingParty,
  verifyPasskeyAuthentication,
  verifyPasskeyRegistration,
} from "../../src/people/passkeys.ts";
import { KvSignInFactors } from "../../src/store/kv/sign_in_factors.ts";
import type { SignInFactorsPort } from "../../src/store/ports/sign_in_factors.ts";
import { freshKv } from "../store/contract/_kv.ts";
import { SoftAuthenticator } from "./_authenticator.ts";

const ORIGIN = "https://forms.example.org";
const rp = relyingParty(`${ORIGIN}/`);
const ada = { id: "person-ada", email: "ada@example.org", name: "Ada" };
const NOW = new Date("2030-01-01T00:00:00Z");

function test(name: string, body: (factors: SignInFactorsPort) => Promise<void>) {
  Deno.test(`passkeys: ${name}`, async () => {
    const { kv, close } = await freshKv();
    try {
      await body(new KvSignInFactors(kv));
    } finally {
      await close();
    }
  });
}

/** Registers a passkey of `ada` made by `authenticator` and stores it. */
async function registered(factors: SignInFactorsPort, authenticator: SoftAuthenticator) {
  const options = await passkeyRegistrationOptions(rp, ada, await factors.list(ada.id));
  const response = await authenticator.register(options);
  const passkey = await verifyPasskeyRegistration(
    rp,
    response,
    options.challenge,
    ada.id,
    "Laptop",
    NOW,
  );
  assert.equal(await factors.add(passkey), "added");
  return passkey;
}

Deno.test("passkeys: the relying party is the public address's host and origin", () => {
  assert.deepEqual(rp, { id: "forms.example.org", name: "Sealpost", origin: ORIGIN });
  assert.deepEqual(relyingParty("http://localhost:8080"), {
    id: "localhost",
    name: "Sealpost",
    origin: "http://localhost:8080",
  });
});

test("registration options: discoverable, verification preferred, no attestation, own keys excluded", async (factors) => {
  const first = await passkeyRegistrationOptions(rp, ada, []);
  assert.equal(first.rp.id, "forms.example.org");
  assert.equal(first.rp.name, "Sealpost");
  assert.equal(first.user.name, "ada@example.org");
  assert.equal(first.user.displayName, "Ada");
  assert.equal(first.user.id, isoBase64URL.fromUTF8String(ada.id));
  assert.equal(first.attestation, "none");
  assert.equal(first.authenticatorSelection?.residentKey, "required");
  assert.equal(first.authenticatorSelection?.requireResidentKey, true);
  assert.equal(first.authenticatorSelection?.userVerification, "preferred");
  assert.deepEqual(first.excludeCredentials, []);
  const passkey = await registered(factors, new SoftAuthenticator(ORIGIN));
  const second = await passkeyRegistrationOptions(rp, ada, await factors.list(ada.id));
  assert.deepEqual(second.excludeCredentials?.map((c) => c.id), [passkey.credentialId]);
  assert.notEqual(second.challenge, first.challenge);
});

test("a registration verifies into the passkey to store", async (factors) => {
  const passkey = await registered(factors, new SoftAuthenticator(ORIGIN));
  assert.equal(passkey.personId, ada.id);
  assert.equal(passkey.name, "Laptop");
  assert.equal(passkey.counter, 0);
  assert.deepEqual(passkey.transports, ["internal"]);
  assert.equal(passkey.createdAt, NOW.toISOString());
  assert.equal(passkey.lastUsedAt, null);
  assert.deepEqual(await factors.byCredentialId(passkey.credentialId), passkey);
});

test("a registration for another challenge or from another origin is refused", async () => {
  const options = await passkeyRegistrationOptions(rp, ada, []);
  const response = await new SoftAuthenticator(ORIGIN).register(options);
  const other = await passkeyRegistrationOptions(rp, ada, []);
  await assert.rejects(
    verifyPasskeyRegistration(rp, response, other.challenge, ada.id, "x"),
    (err: unknown) => err instanceof Invalid && err.code === "passkey_rejected",
  );
  const phished = await new SoftAuthenticator("https://forms.example.org.evil.test").register(
    options,
  );
  await assert.rejects(
    verifyPasskeyRegistration(rp, phished, options.challenge, ada.id, "x"),
    Invalid,
  );
});

test("authentication options list no credential (discoverable sign-in)", async () => {
  const options = await passkeyAuthenticationOptions(rp);
  assert.equal(options.rpId, "forms.example.org");
  assert.deepEqual(options.allowCredentials ?? [], []);
  assert.equal(options.userVerification, "preferred");
});

test("sign-in round trip: the passkey's person signs in, the counter goes up, a replay is refused", async (factors) => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const passkey = await registered(factors, authenticator);
  const options = await passkeyAuthenticationOptions(rp);
  const response = await authenticator.authenticate(options);
  const later = new Date("2030-01-02T00:00:00Z");
  const signedIn = await verifyPasskeyAuthentication(
    rp,
    response,
    options.challenge,
    factors,
    later,
  );
  assert.equal(signedIn?.personId, ada.id);
  assert.equal(signedIn?.counter, 1);
  assert.equal(signedIn?.lastUsedAt, later.toISOString());
  assert.deepEqual(await factors.byCredentialId(passkey.credentialId), signedIn);
  assert.equal(await verifyPasskeyAuthentication(rp, response, options.challenge, factors), null);
  const next = await passkeyAuthenticationOptions(rp);
  const again = await authenticator.authenticate(next);
  assert.equal((await verifyPasskeyAuthentication(rp, again, next.challenge, factors))?.counter, 2);
});

test("sign-in with an authenticator that keeps no counter (always 0)", async (factors) => {
  const authenticator = new SoftAuthenticator(ORIGIN, 0);
  await registered(factors, authenticator);
  for (let i = 0; i < 2; i++) {
    const options = await passkeyAuthenticationOptions(rp);
    const response = await authenticator.authenticate(options);
    const signedIn = await verifyPasskeyAuthentication(rp, response, options.challenge, factors);
    assert.equal(signedIn?.counter, 0);
  }
});

test("sign-in is refused: other challenge, other origin, unknown or removed key, a forged signature, another's user handle", async (factors) => {
  const authenticator = new SoftAuthenticator(ORIGIN);
  const passkey = await registered(factors, authenticator);
  const options = await passkeyAuthenticationOptions(rp);
  const other = await passkeyAuthenticationOptions(rp);
  const good = await authenticator.authenticate(options);
  assert.equal(await verifyPasskeyAuthentication(rp, good, other.challenge, factors), null);

  const phisher = new SoftAuthenticator("https://evil.test");
  phisher.credentials.set(
    passkey.credentialId,
    authenticator.credentials.get(passkey.credentialId)!,
  );
  const phished = await phisher.authenticate(options, passkey.credentialId);
  assert.equal(await verifyPasskeyAuthentication(rp, phished, options.challenge, factors), null);

  const stranger = new SoftAuthenticator(ORIGIN);
  await stranger.register(await passkeyRegistrationOptions(rp, ada, []));
  const unknown = await stranger.authenticate(options);
  assert.equal(await verifyPasskeyAuthentication(rp, unknown, options.challenge, factors), null);

  const forged = await authenticator.authenticate(options);
  const signature = isoBase64URL.toBuffer(forged.response.signature);
  signature[signature.length - 1] ^= 1;
  forged.response.signature = isoBase64URL.fromBuffer(signature);
  assert.equal(await verifyPasskeyAuthentication(rp, forged, options.challenge, factors), null);

  const impostor = await authenticator.authenticate(options);
  impostor.response.userHandle = isoBase64URL.fromUTF8String("person-bob");
  assert.equal(await verifyPasskeyAuthentication(rp, impostor, options.challenge, factors), null);

  const fine = await authenticator.authenticate(options);
  assert.equal(
    (await verifyPasskeyAuthentication(rp, fine, options.challenge, factors))?.personId,
    ada.id,
  );
  await factors.remove(ada.id, passkey.credentialId);
  const gone = await authenticator.authenticate(options);
  assert.equal(await verifyPasskeyAuthentication(rp, gone, options.challenge, factors), null);
});
