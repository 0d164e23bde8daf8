/**
 * Console sign-in, sessions, cookies and CSRF: the session store with a fake clock, and the
 * pages over real HTTP (wrong password, cookie flags, CSRF refusals, sign-out everywhere, the
 * relay role serving no console).
 */
import { adaPerson } from "../_support/people.ts";
import assert from "node:assert/strict";
import { Sessions } from "../../src/console/sessions.ts";
import { KvSessions } from "../../src/store/kv/sessions.ts";
import type { Person } from "../../src/store/ports/people.ts";
import { startInstance } from "../_support/server.ts";
import { startOn } from "../blobs/_backends.ts";
import { ConsoleClient, csrfOf, firstPerson } from "./_client.ts";

/** How the sessions of these tests signed in. */
const SIGN_IN = {
  method: "password",
  secondFactor: false,
  address: "192.0.2.1",
  agent: "t",
} as const;

/** A session store in memory, and the people it checks (removed: deleted). */
async function memoryStore() {
  const kv = await Deno.openKv(":memory:");
  const owner = adaPerson("person-1");
  const people = new Map<string, Person>([[owner.id, owner]]);
  const port = new KvSessions(kv);
  const lookup = (id: string) => Promise.resolve(people.get(id) ?? null);
  return { kv, owner, people, port, lookup };
}

Deno.test("a session ends after the idle time, even when used before", async () => {
  const { kv, owner, port, lookup } = await memoryStore();
  let now = 1_000_000;
  const sessions = new Sessions(port, lookup, { idleSeconds: 600, maxSeconds: 3600 }, () => now);
  try {
    const { cookie } = await sessions.create(owner, SIGN_IN);
    now += 590_000;
    assert.ok(await sessions.get(cookie), "alive before the idle time");
    now += 590_000; // used 590 s ago: still alive, and the idle clock restarts
    assert.ok(await sessions.get(cookie));
    now += 601_000;
    assert.equal(await sessions.get(cookie), null, "idle too long");
    assert.equal(await sessions.get(cookie), null, "and gone for good");
  } finally {
    kv.close();
  }
});

Deno.test("a session ends at its absolute expiry however active", async () => {
  const { kv, owner, port, lookup } = await memoryStore();
  let now = 0;
  const sessions = new Sessions(port, lookup, { idleSeconds: 600, maxSeconds: 1800 }, () => now);
  try {
    const { cookie } = await sessions.create(owner, SIGN_IN);
    for (let i = 0; i < 3; i++) {
      now += 500_000;
      assert.ok(await sessions.get(cookie), `alive at ${now}`);
    }
    now += 500_000; // 2000 s after sign-in
    assert.equal(await sessions.get(cookie), null);
  } finally {
    kv.close();
  }
});

Deno.test("a session ends when its person is removed; sign out everywhere ends all", async () => {
  const { kv, owner, people, port, lookup } = await memoryStore();
  const sessions = new Sessions(port, lookup, { idleSeconds: 600, maxSeconds: 3600 });
  try {
    const a = await sessions.create(owner, SIGN_IN);
    const b = await sessions.create(owner, SIGN_IN);
    assert.equal(await sessions.endAll("person-1"), 2);
    assert.equal(await sessions.get(a.cookie), null);
    assert.equal(await sessions.get(b.cookie), null);
    const c = await sessions.create(owner, SIGN_IN);
    people.delete(owner.id);
    assert.equal(await sessions.get(c.cookie), null);
    assert.equal(await sessions.get("not-a-session"), null);
    assert.equal(await sessions.get(undefined), null);
    assert.ok(sessions.checkCsrf(c.session, c.session.csrf));
    const other = (c.session.csrf[0] === "x" ? "y" : "x") + c.session.csrf.slice(1);
    assert.ok(!sessions.checkCsrf(c.session, other));
    assert.ok(!sessions.checkCsrf(c.session, null));
  } finally {
    kv.close();
  }
});

Deno.test("sign-in page, wrong password, cookie flags, CSRF refusals and sign-out", async () => {
  const inst = await startInstance();
  try {
    const login = await firstPerson(inst);
    const browser = new ConsoleClient(inst.url);
    const first = await browser.request("/console");
    const csp = first.headers.get("content-security-policy")!;
    await first.body?.cancel();
    const page = await browser.page("/console");
    assert.match(page, /<label for="email">Email<\/label>/);
    assert.match(page, /<button type="submit">Sign in<\/button>/);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(first.headers.get("x-frame-options"), "DENY");

    // A wrong password: an error, no cookie.
    const wrong = await browser.post(
      "/console/sign-in",
      { email: login.email, password: "nope, not it" },
      csrfOf(page),
    );
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /do not match an account/);
    assert.deepEqual(wrong.headers.getSetCookie(), []);
    // The owner and admin tokens sign in to the console no more.
    for (const token of [inst.credentials.ownerToken, inst.credentials.adminToken]) {
      const refused = await browser.post(
        "/console/sign-in",
        { email: login.email, password: token },
        csrfOf(page),
      );
      await refused.body?.cancel();
      assert.equal(refused.status, 401);
    }
    // Sign-in without the sign-in form's token is refused.
    const forged = await browser.post("/console/sign-in", { ...login }, "forged");
    await forged.body?.cancel();
    assert.equal(forged.status, 403);
    assert.deepEqual(forged.headers.getSetCookie(), []);

    const ok = await browser.post(
      "/console/sign-in",
      { ...login },
      csrfOf(await browser.page("/console")),
    );
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith("sealpost_console="))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\/console/);
    assert.doesNotMatch(cookie, /Secure/, "plain http: no Secure flag");
    assert.doesNotMatch(cookie, new RegExp(login.password), "no password in cookie");

    const front = await browser.page("/console");
    assert.match(front, /<h1>Forms<\/h1>/);
    const csrf = csrfOf(front);

    // State-changing requests without (or with a wrong) CSRF token: 403, nothing changes.
    for (const token of [null, "wrong"]) {
      const refused = await browser.post("/console/sign-out", {}, token);
      await refused.body?.cancel();
      assert.equal(refused.status, 403);
    }
    const api = await browser.request("/console/quarantine/retry", {
      method: "POST",
      headers: { accept: "application/json" },
    });
    assert.equal(api.status, 403);
    assert.equal((await api.json()).error.code, "csrf_failed");
    assert.match(await browser.page("/console"), /<h1>Forms<\/h1>/, "still signed in");

    // Another browser's session, then sign out everywhere from this one.
    const other = new ConsoleClient(inst.url);
    await other.signIn(login);
    const everywhere = await browser.post("/console/sign-out-everywhere", {}, csrf);
    await everywhere.body?.cancel();
    assert.equal(everywhere.status, 303);
    assert.match(await browser.page("/console"), /<h1>Sign in<\/h1>/);
    assert.match(await other.page("/console"), /<h1>Sign in<\/h1>/, "the other session ended too");

    // Sign out (one session).
    const csrf2 = await browser.signIn(login);
    const out = await browser.post("/console/sign-out", {}, csrf2);
    await out.body?.cancel();
    assert.equal(out.status, 303);
    assert.match(await browser.page("/console"), /<h1>Sign in<\/h1>/);
    // Pages need a session.
    const gone = await browser.request("/console/quarantine");
    await gone.body?.cancel();
    assert.equal(gone.status, 303);
    assert.equal(gone.headers.get("location"), "/console");
  } finally {
    await inst.close();
  }
});

Deno.test("cookies are Secure when the public base URL is https", async () => {
  const inst = await startInstance({ SEALPOST_BASE_URL: "https://forms.example.test" });
  try {
    const browser = new ConsoleClient(inst.url);
    const page = await browser.request("/console");
    await page.body?.cancel();
    assert.match(page.headers.getSetCookie()[0], /Secure/);
    const form = await new ConsoleClient(inst.url).page("/console");
    const login = await firstPerson(inst);
    const signIn = await browser.post("/console/sign-in", { ...login }, csrfOf(form));
    await signIn.body?.cancel();
    // The sign-in form's cookie of `browser` differs from `form`'s token: refused.
    assert.equal(signIn.status, 403);
    const csrf = csrfOf(await browser.page("/console"));
    const ok = await browser.post("/console/sign-in", { ...login }, csrf);
    await ok.body?.cancel();
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith("sealpost_console="))!;
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /HttpOnly/);
  } finally {
    await inst.close();
  }
});

Deno.test("the relay role serves no console", async () => {
  const inst = await startInstance({ SEALPOST_SERVER_ROLE: "relay" });
  try {
    for (const path of ["/console", "/console/sign-in", "/console/assets/console.css"]) {
      const response = await fetch(inst.url + path);
      await response.body?.cancel();
      assert.equal(response.status, 404, path);
    }
    const post = await fetch(inst.url + "/console/sign-in", { method: "POST" });
    assert.equal(post.status, 404);
    assert.equal((await post.json()).error.code, "not_found");
  } finally {
    await inst.close();
  }
});

Deno.test("a vault-role process serves the console; images may load from its relay", async () => {
  const relay = await startInstance({ SEALPOST_SERVER_ROLE: "relay" });
  Deno.env.set("SEALPOST_RELAY_TOKEN", relay.credentials.ownerToken);
  let vault: Awaited<ReturnType<typeof startInstance>> | null = null;
  try {
    vault = await startInstance({
      SEALPOST_SERVER_ROLE: "vault",
      SEALPOST_VAULT_RELAY_URL: relay.url,
    });
    const browser = new ConsoleClient(vault.url);
    await browser.signIn(await firstPerson(vault));
    const front = await browser.request("/console");
    assert.equal(front.status, 200);
    await front.body?.cancel();
    const csp = front.headers.get("content-security-policy")!;
    assert.ok(csp.includes(`img-src 'self' data: ${new URL(relay.url).origin}`), csp);
  } finally {
    Deno.env.delete("SEALPOST_RELAY_TOKEN");
    await vault?.close();
    await relay.close();
  }
});

Deno.test("[s3] with blobs.backend = s3, console images may also load from the store", async () => {
  const inst = await startOn("s3");
  try {
    const browser = new ConsoleClient(inst.url);
    await browser.signIn(await firstPerson(inst));
    const front = await browser.request("/console");
    await front.body?.cancel();
    const csp = front.headers.get("content-security-policy")!;
    const img = `img-src 'self' data: ${new URL(inst.url).origin} ${inst.s3!.endpoint};`;
    assert.ok(csp.includes(img), csp);
  } finally {
    await inst.close();
  }
});
