/**
 * A cookie-keeping HTTP client for the console's pages (over real HTTP), sign-in with an email
 * and a password, and the first person's password for tests ({@link firstPerson}).
 */
import assert from "node:assert/strict";
import { hashPassword } from "../../src/people/password.ts";
import type { TestInstance } from "../_support/server.ts";

/** How a test person signs in. */
export interface Login {
  email: string;
  password: string;
}

/** The password tests give people. */
export const TEST_PASSWORD = "correct horse battery staple";

/**
 * Gives person `personId` of `inst` (the first person, init's user, unless given) the password
 * {@link TEST_PASSWORD} through the people port; answers how they sign in.
 */
export async function firstPerson(inst: TestInstance, personId?: string): Promise<Login> {
  const people = inst.server.vault!.store.people;
  const id = personId ?? inst.credentials.userId;
  const passwordHash = await hashPassword(TEST_PASSWORD);
  const person = await people.update(id, (p) => ({ ...p, passwordHash }));
  assert.ok(person && person !== "email_taken", "the person exists");
  return { email: person.email, password: TEST_PASSWORD };
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
