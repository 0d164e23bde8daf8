/**
 * The passkey island in real Chromium, against the server half (src/people/passkeys.ts) behind
 * a bare test server that speaks the island's protocol: register a passkey and sign in with
 * it through a CDP virtual authenticator (discoverable credential, user verification).
 */
import assert from "node:assert/strict";
import { PASSKEY_JS } from "../../src/console/assets.ts";
import * as passkeys from "../../src/people/passkeys.ts";
import { KvSignInFactors } from "../../src/store/kv/sign_in_factors.ts";
import { addVirtualAuthenticator, launchChromium } from "../_support/chromium.ts";
import { freshKv } from "../store/contract/_kv.ts";

const PAGE = `<!doctype html><html lang="en"><title>Passkeys</title><main>
<label for="name">Name</label><input id="name" value="Test key">
<button type="button" data-passkey="register" data-options="/register/options"
  data-verify="/register" data-csrf="tok" data-name-input="name" data-status="status">Add a passkey</button>
<button type="button" data-passkey="sign-in" data-options="/sign-in/options"
  data-verify="/sign-in" data-csrf="tok" data-status="status">Sign in with a passkey</button>
<p id="status" role="status"></p></main><script type="module" src="/passkey.js"></script></html>`;

Deno.test("passkey island: register, then sign in, in Chromium with a virtual authenticator", async () => {
  const store = await freshKv();
  const factors = new KvSignInFactors(store.kv);
  const challenges = new Map<string, string>();
  const person = { id: "person-ada", email: "ada@example.org", name: "Ada" };
  const signedIn: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const rp = passkeys.relyingParty(`http://localhost:${server.addr.port}`);
    const json = (body: unknown) => Response.json(body);
    if (req.method === "GET" && url.pathname === "/") {
      return new Response(PAGE, { headers: { "content-type": "text/html" } });
    }
    if (url.pathname === "/passkey.js") {
      return new Response(PASSKEY_JS, { headers: { "content-type": "text/javascript" } });
    }
    if (req.method !== "POST") return new Response("Not found", { status: 404 });
    assert.equal(req.headers.get("x-csrf-token"), "tok");
    const body = await req.json();
    const ticket = crypto.randomUUID();
    if (url.pathname === "/register/options") {
      const options = await passkeys.passkeyRegistrationOptions(
        rp,
        person,
        await factors.list(person.id),
      );
      challenges.set(ticket, options.challenge);
      return json({ options, ticket });
    }
    if (url.pathname === "/sign-in/options") {
      const options = await passkeys.passkeyAuthenticationOptions(rp);
      challenges.set(ticket, options.challenge);
      return json({ options, ticket });
    }
    const challenge = challenges.get(body.ticket)!;
    challenges.delete(body.ticket);
    if (url.pathname === "/register") {
      const passkey = await passkeys.verifyPasskeyRegistration(
        rp,
        body.response,
        challenge,
        person.id,
        body.name,
      );
      await factors.add(passkey);
      return json({ redirect: "/?registered" });
    }
    const passkey = await passkeys.verifyPasskeyAuthentication(
      rp,
      body.response,
      challenge,
      factors,
    );
    if (!passkey) return json({ error: "That passkey did not sign you in." });
    signedIn.push(passkey.personId);
    return json({ redirect: "/?signed-in" });
  });
  const profile = await Deno.makeTempDir({ prefix: "sealpost-passkey-" });
  const browser = await launchChromium(profile);
  try {
    const page = await browser.newPage();
    await addVirtualAuthenticator(browser, page);
    await page.goto(`http://localhost:${server.addr.port}/`);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.waitForURL(/\?registered$/);
    const [stored] = await factors.list(person.id);
    assert.equal(stored.name, "Test key");
    assert.equal(stored.personId, person.id);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(/\?signed-in$/);
    assert.deepEqual(signedIn, [person.id]);
    await page.getByRole("button", { name: "Add a passkey" }).click();
    await page.getByText("already holds a passkey").waitFor();
  } finally {
    await browser.close();
    await server.shutdown();
    await store.close();
    await Deno.remove(profile, { recursive: true });
  }
});
