/**
 * Browser test fixture: a real instance with a published form of every field kind, and
 * Debian's Chromium driven by playwright-core.
 */
import type { BrowserContext } from "playwright-core";
import { launchChromium } from "../_support/chromium.ts";
import { startInstance, type TestInstance } from "../_support/server.ts";
import { vaultForm } from "../_support/vault.ts";

/** One field of every kind (two choice fields: single and multi). */
export const ALL_FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true, maxLength: 200 },
  { id: "email", label: "Email", kind: "email", required: true },
  { id: "site", label: "Website", kind: "url" },
  { id: "phone", label: "Phone", kind: "phone" },
  { id: "bio", label: "About you", kind: "richText", description: "A few lines." },
  { id: "age", label: "Age", kind: "number", integer: true, min: 0, max: 150 },
  { id: "agree", label: "I agree to be contacted", kind: "boolean" },
  { id: "day", label: "Preferred day", kind: "date" },
  { id: "when", label: "Meeting time", kind: "dateTime" },
  { id: "size", label: "Size", kind: "choice", options: ["S", "M", "L"] },
  { id: "colors", label: "Colors", kind: "choice", multiple: true, options: ["red", "green"] },
  { id: "tags", label: "Tags", kind: "list" },
  { id: "place", label: "Where", kind: "geo" },
  { id: "photo", label: "Photo", kind: "image", accept: ["image/*"] },
  { id: "cv", label: "CV", kind: "attachment", accept: ["application/pdf"] },
];

/** A running instance with the every-kind form published, and a browser. */
export interface WebFixture {
  inst: TestInstance;
  formId: string;
  pin: string;
  token: string;
  browser: BrowserContext;
  close(): Promise<void>;
}

/** Starts an instance, publishes a form of `fields` and launches Chromium. */
export async function webFixture(fields: unknown[] = ALL_FIELDS): Promise<WebFixture> {
  const inst = await startInstance();
  const dir = await Deno.makeTempDir({ prefix: "sealpost-web-" });
  try {
    const { form, pin, token } = await vaultForm(inst, "Every kind", fields);
    const browser = await launchChromium(`${dir}/profile`);
    return {
      inst,
      formId: form.formId,
      pin,
      token,
      browser,
      close: async () => {
        await browser.close();
        await inst.close();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } catch (e) {
    await inst.close();
    await Deno.remove(dir, { recursive: true });
    throw e;
  }
}
