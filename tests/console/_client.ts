/**
 * A cookie-keeping HTTP client for the console's pages (over real HTTP), sign-in with an email
 * and a password, and the first person's password for tests ({@link firstPerson}).
 */
import assert from "node:assert/strict";
import { TOTP } from "otpauth";
import { loadConfig } from "../../src/config/index.ts";
import { hashPassword } from "../../src/people/password.ts";
import { readCredentials } from "../../src/store/data_dir.ts";
import { openConfiguredStore } from "../../src/store/open.ts";
import type { PeoplePort } from "../../src/store/ports/people.ts";
import type { TestInstance } from "../_support/server.ts";

/** How a test person signs in. */
export interface Login {
  email: string;
  password: string;
}

/** The password tests give people. */
export const TEST_PASSWORD = "correct horse battery staple";

/** Gives person `personId` the password {@link TEST_PASSWORD}; answers how they sign in. */
export async function withPassword(people: PeoplePort, personId: string): Promise<Login> {
  const passwordHash = await hashPassword(TEST_PASSWORD);
  const person = await people.update(personId, (p) => ({ ...p, passwordHash }));
  assert.ok(person && person !== "email_taken", "the person exists");
  return { email: person.email, password: TEST_PASSWORD };
}

/** The first person (init's user) of an in-process instance, with {@link TEST_PASSWORD}. */
export function firstPerson(inst: Pick<TestInstance, "server" | "credentials">): Promise<Login> {
  return withPassword(inst.server.vault!.store.people, inst.credentials.userId);
}

/**
 * The first person of the stopped instance of data dir `dataDir` (a `sealpost serve`
 * subprocess that has run once), given {@link TEST_PASSWORD} in its store.
 */
export async function firstPersonOf(dataDir: string): Promise<Login> {
  const config = await loadConfig({ env: {}, flags: { data: dataDir } });
  const store = await openConfiguredStore(config);
  try {
    const { userId } = (await readCredentials(dataDir))!;
    return await withPassword(store.ports.vault.people, userId);
  } finally {
    await store.close();
  }
}

/** A browser-like client: keeps cookies, reads CSRF tokens out of pages. */
export class ConsoleClient {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  /** Sends a request with the kept cookies; keeps what the response sets. */
  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    if (!headers.has("accept")) headers.set("accept", "text/html");
    const response = await fetch(this.base + path, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** GETs a page's HTML (status asserted). */
  async page(path: string, status = 200): Promise<string> {
    const response = await this.request(path);
    const text = await response.text();
    assert.equal(response.status, status, `${path}: ${text.slice(0, 500)}`);
    return text;
  }

  /** POSTs a form (fields as given; the page's CSRF token added unless `csrf` is null). */
  async post(
    path: string,
    fields: Record<string, string | string[]>,
    csrf: string | null,
  ): Promise<Response> {
    const body = new URLSearchParams();
    if (csrf !== null) body.set("_csrf", csrf);
    for (const [k, v] of Object.entries(fields)) {
      for (const one of [v].flat()) body.append(k, one);
    }
    return await this.request(path, { method: "POST", body });
  }

  /** Signs in with an email and a password; returns the session's CSRF token. */
  async signIn(login: Login): Promise<string> {
    const form = await this.page("/console");
    const response = await this.post("/console/sign-in", { ...login }, csrfOf(form));
    await response.body?.cancel();
    assert.equal(response.status, 303);
    return csrfOf(await this.page("/console"));
  }
}

/** The CSRF token of the first form of a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  assert.ok(match, "page has a CSRF field");
  return match[1];
}

/** The code of a TOTP secret at `at`, as an authenticator app shows it. */
export function totpCode(secret: string, at = Date.now()): string {
  return new TOTP({ secret, algorithm: "SHA1", digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}
