/// <reference lib="dom" />
/**
 * A sender's draft, for forms whose signed manifest says `drafts: true` (never otherwise: by
 * default the form page keeps nothing in the browser). The unsent answers are encrypted with
 * AES-256-GCM (WebCrypto) and kept in `localStorage` under `sealpost:draft:{formId}`; the key
 * is 32 random bytes that live only in the page's address (`#pin=…&draft={key}`), which the
 * browser keeps in its history but never sends to a server. Storage alone does not open a
 * draft: whoever reads the site's storage without that address sees ciphertext. Sending the
 * form, or "Forget this draft", removes both. See docs/security.md for what this does and does
 * not protect against.
 *
 * @module
 */
import { base64urlnopad } from "@scure/base";

const PREFIX = "sealpost:draft:";

/** What is stored: the version, the AES-GCM nonce and the ciphertext, base64url. */
interface Sealed {
  v: 1;
  iv: string;
  data: string;
}

/**
 * A fresh draft key: 32 random bytes, base64url (43 characters), for the address's `draft=`.
 *
 * @example
 * ```ts
 * import { newDraftKey } from "./draft.ts";
 * newDraftKey().length; // 43
 * ```
 */
export function newDraftKey(): string {
  return base64urlnopad.encode(crypto.getRandomValues(new Uint8Array(32)));
}

/**
 * Whether this browser holds a draft of `formId` (readable or not).
 *
 * @example
 * ```ts
 * import { hasDraft } from "./draft.ts";
 * if (hasDraft("contact")) console.log("a draft is kept here");
 * ```
 */
export function hasDraft(formId: string): boolean {
  try {
    return localStorage.getItem(PREFIX + formId) !== null;
  } catch {
    return false;
  }
}

/**
 * Removes the draft of `formId` from this browser (best effort).
 *
 * @example
 * ```ts
 * import { forgetDraft } from "./draft.ts";
 * forgetDraft("contact");
 * ```
 */
export function forgetDraft(formId: string): void {
  try {
    localStorage.removeItem(PREFIX + formId);
  } catch { /* storage unavailable: nothing was kept */ }
}

/** The AES-GCM key of `keyText`, bound (by the additional data) to one form. */
async function importKey(keyText: string): Promise<CryptoKey | null> {
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = new Uint8Array(base64urlnopad.decode(keyText));
  } catch {
    return null;
  }
  if (raw.length !== 32) return null;
  return await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

const additionalData = (formId: string) => new TextEncoder().encode(`sealpost draft v1 ${formId}`);

/**
 * Encrypts `values` with `keyText` and keeps them as the draft of `formId`; false when the key
 * is malformed or storage refuses (private mode, full), so nothing was kept.
 *
 * @example
 * ```ts
 * import { newDraftKey, saveDraft } from "./draft.ts";
 * await saveDraft("contact", newDraftKey(), { name: "Ada" });
 * ```
 */
export async function saveDraft(
  formId: string,
  keyText: string,
  values: Record<string, unknown>,
): Promise<boolean> {
  const key = await importKey(keyText);
  if (!key) return false;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(values));
  const data = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: additionalData(formId) },
      key,
      plain,
    ),
  );
  const sealed: Sealed = {
    v: 1,
    iv: base64urlnopad.encode(iv),
    data: base64urlnopad.encode(data),
  };
  try {
    localStorage.setItem(PREFIX + formId, JSON.stringify(sealed));
    return true;
  } catch {
    return false;
  }
}

/**
 * The draft of `formId` opened with `keyText`, or null: no draft, no or another key, or
 * altered bytes (AES-GCM authenticates them).
 *
 * @example
 * ```ts
 * import { loadDraft } from "./draft.ts";
 * const values = await loadDraft("contact", keyFromTheAddress);
 * ```
 */
export async function loadDraft(
  formId: string,
  keyText: string,
): Promise<Record<string, unknown> | null> {
  let text: string | null;
  try {
    text = localStorage.getItem(PREFIX + formId);
  } catch {
    return null;
  }
  const key = text === null || !keyText ? null : await importKey(keyText);
  if (!key) return null;
  try {
    const sealed = JSON.parse(text!) as Sealed;
    const plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: new Uint8Array(base64urlnopad.decode(sealed.iv)),
        additionalData: additionalData(formId),
      },
      key,
      new Uint8Array(base64urlnopad.decode(sealed.data)),
    );
    const values = JSON.parse(new TextDecoder().decode(plain));
    return values && typeof values === "object" && !Array.isArray(values) ? values : null;
  } catch {
    return null;
  }
}
