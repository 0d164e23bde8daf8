/**
 * Everything a page's origin keeps in Chromium: localStorage, sessionStorage, IndexedDB
 * databases, cookies (the page's and the browser's), and the quota-managed usage the
 * DevTools protocol reports (IndexedDB, Cache Storage, service workers, file systems).
 */
import type { Page } from "playwright-core";

/** What the origin of `page` keeps in the browser. */
export interface StorageState {
  localStorage: Record<string, string>;
  sessionStorage: Record<string, string>;
  indexedDB: string[];
  documentCookie: string;
  cookies: number;
  usageBytes: number;
}

/** An origin that keeps nothing. */
export const EMPTY_STORAGE: StorageState = {
  localStorage: {},
  sessionStorage: {},
  indexedDB: [],
  documentCookie: "",
  cookies: 0,
  usageBytes: 0,
};

/** Reads every kind of storage of `page`'s origin. */
export async function storageOf(page: Page): Promise<StorageState> {
  const inPage = await page.evaluate(`(async () => ({
    localStorage: Object.fromEntries(Object.entries(localStorage)),
    sessionStorage: Object.fromEntries(Object.entries(sessionStorage)),
    indexedDB: (await indexedDB.databases()).map((d) => d.name),
    documentCookie: document.cookie,
  }))()`) as Omit<StorageState, "cookies" | "usageBytes">;
  const origin = new URL(page.url()).origin;
  const cdp = await page.context().newCDPSession(page);
  try {
    const { usage } = await cdp.send("Storage.getUsageAndQuota", { origin });
    const cookies = (await page.context().cookies(origin)).length;
    return { ...inPage, cookies, usageBytes: usage };
  } finally {
    await cdp.detach();
  }
}
