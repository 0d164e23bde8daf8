/**
 * Debian's Chromium for browser tests and benchmarks, driven by playwright-core.
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { CHROMIUM } from "./tools.ts";

/** Chromium's flags on this machine (no sandbox, no GPU, no background traffic). */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches headless Chromium with a fresh profile in `profileDir`. */
export function launchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}

/**
 * Gives `page` a virtual platform authenticator through the DevTools protocol (CTAP2, resident
 * keys, user verification that always succeeds, presence answered at once): WebAuthn
 * ceremonies then run without a person.
 */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
