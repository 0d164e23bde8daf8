/**
 * Debian's Chromium for browser tests and benchmarks, driven by playwright-core.
 */
import { type BrowserContext, chromium } from "playwright-core";

/** Chromium's path: `SEALPOST_CHROMIUM`, else Debian's. */
export const CHROMIUM = Deno.env.get("SEALPOST_CHROMIUM") ?? "/usr/bin/chromium";

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
