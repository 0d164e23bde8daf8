/**
 * Console sign-in over real HTTP: email and password, no user enumeration, the sign-in limits,
 * the second step (TOTP, recovery codes used once), a required second factor, and the
 * set-password link used once.
 */
import assert from "node:assert/strict";
import { issueTicket } from "../../src/people/tickets.ts";
import { startInstance, type TestInstance } from "../_support/server.ts";
import {
  ConsoleClient,
  csrfOf,
  firstPerson,
  type Login,
  TEST_PASSWORD,
  totpCode,
} from "./_client.ts";

/** Posts the sign-in form with `login`; the response (body unread). */
async function postSignIn(browser: ConsoleClient, login: Login): Promise<Response> {
  const form = await browser.page("/console");
  return await browser.post("/console/sign-in", { ...login }, csrfOf(form));
}

/** The error text of a page. */
function errorOf(html: string): string {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1] ?? "";
}

/** Sets up TOTP on the Security page of a signed-in client; the secret and recovery codes. */
async function setUpTotp(browser: ConsoleClient): Promise<{ secret: string; codes: string[] }> {
  const setup = await browser.page("/console/security/totp");
  const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(setup)![1];
  assert.match(setup, /<img class="qr" src="data:image\/svg\+xml;base64,/);
  const done = await browser.post(
    "/console/security/totp",
    { secret, code: totpCode(secret) },
    csrfOf(setup),
  );
  const page = await done.text();
  assert.equal(done.status, 200, page.slice(0, 300));
  const codes = [...page.matchAll(/<li><code>([0-9A-Z-]{14})<\/code><\/li>/g)].map((m) => m[1]);
  assert.equal(codes.length, 10);
  return { secret, codes };
}

async function signedInFront(browser: ConsoleClient, response: Response): Promise<void> {
  await response.body?.cancel();
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("location"), "/console");
  assert.match(await browser.page("/console"), /<h1>Forms<\/h1>/);
}

Deno.test("sign in with an email and a password; wrong password and unknown email alike", async () => {
  const inst = await startInstance();
  try {
    const login = await firstPerson(inst);
    const browser = new ConsoleClient(inst.url);
    const page = await browser.page("/console");
    assert.match(page, /<label for="email">Email<\/label>/);
    assert.match(page, /<label for="password">Password<\/label>/);
    assert.match(page, /<button type="submit">Sign in<\/button>/);
    assert.match(page, />Sign in with a passkey<\/button>/);
    assert.doesNotMatch(page, /Owner token/);

    const answers = [];
    for (
      const attempt of [{ ...login, password: "wrong password!" }, {
        email: "nobody@example.org",
        password: TEST_PASSWORD,
      }]
    ) {
      const started = performance.now();
      const response = await postSignIn(browser, attempt);
      const text = await response.text();
      answers.push({
        status: response.status,
        error: errorOf(text),
        cookies: response.headers.getSetCookie(),
        ms: performance.now() - started,
      });
    }
    assert.equal(answers[0].status, 401);
    assert.equal(answers[1].status, 401);
    assert.equal(answers[0].error, answers[1].error);
    assert.match(answers[0].error, /do not match an account/);
    assert.deepEqual(answers[0].cookies, answers[1].cookies);
    // Both spend one Argon2id hash (tens of milliseconds on the shared machine).
    for (const a of answers) assert.ok(a.ms > 20, `took ${a.ms} ms`);

    // The owner token no longer signs in.
    const token = await postSignIn(browser, {
      email: login.email,
      password: inst.credentials.ownerToken,
    });
    await token.body?.cancel();
    assert.equal(token.status, 401);

    // Upper case and spaces around the email do not matter.
    await signedInFront(
      browser,
      await postSignIn(browser, { ...login, email: ` ${login.email.toUpperCase()} ` }),
    );
    const security = await browser.page("/console/security");
    assert.match(security, /<td>password<\/td>\s*<td>no<\/td>\s*<td>127\.0\.0\.1<\/td>/);
  } finally {
    await inst.close();
  }
});

Deno.test("the sign-in limits answer in plain words, per account and per address", async () => {
  const inst = await startInstance({
    SEALPOST_RATE_LIMITS_ENABLED: "true",
    SEALPOST_RATE_LIMITS_SIGN_IN_ACCOUNT_BURST: "3",
    SEALPOST_RATE_LIMITS_SIGN_IN_ACCOUNT_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_SIGN_IN_ADDRESS_BURST: "6",
    SEALPOST_RATE_LIMITS_SIGN_IN_ADDRESS_PER_MINUTE: "1",
    SEALPOST_RATE_LIMITS_VAULT_BURST: "1000",
    SEALPOST_RATE_LIMITS_VAULT_PER_MINUTE: "1000",
  });
  try {
    const login = await firstPerson(inst);
    const browser = new ConsoleClient(inst.url);
    const wrong = { ...login, password: "not the password" };
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const response = await postSignIn(browser, wrong);
      statuses.push(response.status);
      const text = await response.text();
      if (i === 3) assert.match(errorOf(text), /Too many sign-in attempts.*Wait \d+ seconds/);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    // The right password is refused too while the account's bucket is empty.
    const right = await postSignIn(browser, login);
    await right.body?.cancel();
    assert.equal(right.status, 429);
    // Other emails from the same address, until the address's bucket is empty.
    const others = [];
    for (let i = 0; i < 2; i++) {
      const response = await postSignIn(browser, { email: `x${i}@example.org`, password: "x" });
      await response.body?.cancel();
      others.push(response.status);
    }
    assert.deepEqual(others, [401, 429]);
  } finally {
    await inst.close();
  }
});

async function signOut(browser: ConsoleClient, csrf: string) {
  const out = await browser.post("/console/sign-out", {}, csrf);
  await out.body?.cancel();
  assert.equal(out.status, 303);
}

Deno.test("a second factor: TOTP codes once, recovery codes once, then the password again", async () => {
  const inst = await startInstance();
  try {
    const login = await firstPerson(inst);
    const browser = new ConsoleClient(inst.url);
    const csrf = await browser.signIn(login);
    const { secret, codes } = await setUpTotp(browser);
    const security = await browser.page("/console/security");
    assert.match(security, /10 of 10 recovery codes left/);
    await signOut(browser, csrf);

    // The password alone now leads to the second step.
    const first = await postSignIn(browser, login);
    await first.body?.cancel();
    assert.equal(first.status, 303);
    assert.equal(first.headers.get("location"), "/console/sign-in/second-factor");
    const step = await browser.page("/console/sign-in/second-factor");
    assert.match(step, /Code from your authenticator app/);
    assert.match(step, /Use a recovery code/);
    // A wrong code: asked again; the code used at set-up (same step) is refused too.
    const wrong = await browser.post(
      "/console/sign-in/second-factor",
      { code: totpCode(secret) },
      csrfOf(step),
    );
    assert.equal(wrong.status, 401);
    assert.match(errorOf(await wrong.text()), /not right/);
    // A recovery code signs in, once.
    await signedInFront(
      browser,
      await browser.post("/console/sign-in/second-factor", { recovery: codes[0] }, csrfOf(step)),
    );
    const page = await browser.page("/console/security");
    assert.match(page, /9 of 10 recovery codes left/);
    assert.match(page, /<td>password<\/td>\s*<td>yes<\/td>/);
    await signOut(browser, csrfOf(page));

    await (await postSignIn(browser, login)).body?.cancel();
    const again = await browser.page("/console/sign-in/second-factor?recovery=1");
    assert.match(again, /<label for="recovery">Recovery code<\/label>/);
    const reused = await browser.post(
      "/console/sign-in/second-factor",
      { recovery: codes[0].toLowerCase() },
      csrfOf(again),
    );
    assert.equal(reused.status, 401, "a used recovery code is refused");
    await reused.body?.cancel();
    // The next TOTP step signs in (the set-up step is used).
    const next = totpCode(secret, Date.now() + 30_000);
    await signedInFront(
      browser,
      await browser.post("/console/sign-in/second-factor", { code: next }, csrfOf(again)),
    );
    // Without the password step, the second step is no way in.
    const stranger = new ConsoleClient(inst.url);
    const form = await stranger.page("/console");
    const forged = await stranger.post(
      "/console/sign-in/second-factor",
      { recovery: codes[1] },
      csrfOf(form),
    );
    await forged.body?.cancel();
    assert.equal(forged.status, 303);
    assert.equal(forged.headers.get("location"), "/console");
    assert.doesNotMatch(await stranger.page("/console"), /<h1>Forms<\/h1>/);
  } finally {
    await inst.close();
  }
});

async function requiredInstance(): Promise<TestInstance> {
  return await startInstance({ SEALPOST_CONSOLE_REQUIRE_SECOND_FACTOR: "true" });
}

Deno.test("a required second factor: the Security page first, nothing else until one is added", async () => {
  const inst = await requiredInstance();
  try {
    const login = await firstPerson(inst);
    const browser = new ConsoleClient(inst.url);
    const signedIn = await postSignIn(browser, login);
    await signedIn.body?.cancel();
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get("location"), "/console/security");
    const security = await browser.page("/console/security");
    assert.match(security, /asks everyone for a second factor/);
    for (const path of ["/console", "/console/forms/new", "/console/quarantine"]) {
      const response = await browser.request(path);
      await response.body?.cancel();
      assert.equal(response.status, 303, path);
      assert.equal(response.headers.get("location"), "/console/security", path);
    }
    const post = await browser.request("/console/forms", {
      method: "POST",
      headers: { accept: "application/json", "x-csrf-token": csrfOf(security) },
    });
    assert.equal(post.status, 403);
    assert.equal((await post.json()).error.code, "second_factor_required");

    await setUpTotp(browser);
    assert.match(await browser.page("/console"), /<h1>Forms<\/h1>/);
    assert.doesNotMatch(await browser.page("/console/security"), /asks everyone/);
  } finally {
    await inst.close();
  }
});

Deno.test("a set-password link sets the password once", async () => {
  const inst = await startInstance();
  try {
    const vault = inst.server.vault!;
    const person = (await vault.store.people.get(inst.credentials.userId))!;
    const ticket = await issueTicket(
      vault.store.tickets,
      "set_password",
      person.id,
      {},
      3600_000,
    );
    const browser = new ConsoleClient(inst.url);
    const page = await browser.page("/console/set-password");
    assert.match(page, /At least 12 characters/);
    assert.match(page, /<input type="hidden" name="ticket" data-fragment-secret/);
    const password = "a new password for the test";
    const short = await browser.post(
      "/console/set-password",
      { ticket, password: "short", confirm: "short" },
      csrfOf(page),
    );
    assert.equal(short.status, 400);
    assert.match(errorOf(await short.text()), /at least 12 characters/);
    const set = await browser.post(
      "/console/set-password",
      { ticket, password, confirm: password },
      csrfOf(page),
    );
    assert.equal(set.status, 200);
    assert.match(await set.text(), /Your password is set/);
    const again = await browser.post(
      "/console/set-password",
      { ticket, password: "yet another password", confirm: "yet another password" },
      csrfOf(page),
    );
    assert.equal(again.status, 410);
    assert.match(errorOf(await again.text()), /used already or has expired/);
    await signedInFront(browser, await postSignIn(browser, { email: person.email, password }));
  } finally {
    await inst.close();
  }
});
