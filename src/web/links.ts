/**
 * The form page's links and embed snippets, shared by the relay, the CLI and the islands.
 *
 * Secrets travel in the URL fragment only (`#…`), which browsers never send to a server, so
 * they never reach a request log: the manifest-key pin of the share link, the submission
 * id and edit token of the edit link, and the key of a sender's draft (`&draft=`).
 *
 * @module
 */

/** The `type` of the message the form page posts to its embedding window with its height. */
export const EMBED_HEIGHT_MESSAGE = "sealpost:height";

/** What the form page reads from its URL fragment. */
export interface PageFragment {
  /** Manifest-key fingerprint the manifest must verify against; "" when absent. */
  pin: string;
  /** Set on an edit link: the submission to amend and its edit token. */
  edit: { submissionId: string; editToken: string } | null;
  /** The key of this page's draft (forms with drafts, `src/web/client/draft.ts`); "" if none. */
  draft: string;
}

function base(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * The share link of a form: `{relayUrl}/f/{formId}#pin={pin}`.
 *
 * @example
 * ```ts
 * import { shareLink } from "./links.ts";
 * shareLink("https://forms.example", "contact", "ab12"); // "https://forms.example/f/contact#pin=ab12"
 * ```
 */
export function shareLink(relayUrl: string, formId: string, pin: string): string {
  return `${base(relayUrl)}/f/${encodeURIComponent(formId)}#pin=${encodeURIComponent(pin)}`;
}

/**
 * The edit link of a submission: the page's own address (without its fragment) with the pin,
 * the submission id and the edit token in the fragment.
 *
 * @example
 * ```ts
 * import { editLink } from "./links.ts";
 * editLink("https://forms.example/f/contact#pin=ab", "ab", "0f…", "tok");
 * // "https://forms.example/f/contact#pin=ab&submission=0f…&token=tok"
 * ```
 */
export function editLink(
  pageUrl: string,
  pin: string,
  submissionId: string,
  editToken: string,
): string {
  const page = pageUrl.split("#", 1)[0];
  const fragment = new URLSearchParams({ pin, submission: submissionId, token: editToken });
  return `${page}#${fragment}`;
}

/**
 * Reads the pin and, on an edit link, the submission id and edit token from a URL fragment
 * (with or without its leading `#`).
 *
 * @example
 * ```ts
 * import { parseFragment } from "./links.ts";
 * parseFragment("#pin=ab12").pin; // "ab12"
 * ```
 */
export function parseFragment(hash: string): PageFragment {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const submissionId = params.get("submission") ?? "";
  const editToken = params.get("token") ?? "";
  return {
    pin: (params.get("pin") ?? "").trim().toLowerCase(),
    edit: /^[0-9a-f]{32}$/.test(submissionId) && editToken ? { submissionId, editToken } : null,
    draft: params.get("draft") ?? "",
  };
}

/**
 * `pageUrl` with its fragment's `draft` set to `key`, or taken out when `key` is null; the
 * rest of the fragment (the pin) is kept as it was.
 *
 * @example
 * ```ts
 * import { withDraftKey } from "./links.ts";
 * withDraftKey("https://forms.example/f/contact#pin=ab", "k1");
 * // "https://forms.example/f/contact#pin=ab&draft=k1"
 * ```
 */
export function withDraftKey(pageUrl: string, key: string | null): string {
  const [page, hash = ""] = pageUrl.split(/#(.*)/s, 2);
  const params = new URLSearchParams(hash);
  if (key === null) params.delete("draft");
  else params.set("draft", key);
  const fragment = String(params);
  return fragment ? `${page}#${fragment}` : page;
}

/**
 * The frame address the one-line embed opens: the form page on the relay that served the
 * script, with the pin in the fragment.
 *
 * @example
 * ```ts
 * import { embedFrameUrl } from "./links.ts";
 * embedFrameUrl("https://forms.example/embed.js", "contact", "ab12");
 * // "https://forms.example/f/contact#pin=ab12"
 * ```
 */
export function embedFrameUrl(scriptSrc: string, formId: string, pin: string): string {
  return shareLink(new URL(scriptSrc).origin, formId, pin);
}

const attr = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * The `<iframe>` snippet that embeds a form on another site.
 *
 * @example
 * ```ts
 * import { iframeSnippet } from "./links.ts";
 * iframeSnippet("https://forms.example", "contact", "ab12", "Contact");
 * ```
 */
export function iframeSnippet(relayUrl: string, formId: string, pin: string, title: string) {
  return `<iframe src="${attr(shareLink(relayUrl, formId, pin))}" title="${attr(title)}" ` +
    `style="width:100%;height:640px;border:0" allow="geolocation" loading="lazy"></iframe>`;
}

/**
 * The one-line `<script>` embed of a form (see `src/web/islands/embed.ts`).
 *
 * @example
 * ```ts
 * import { scriptSnippet } from "./links.ts";
 * scriptSnippet("https://forms.example", "contact", "ab12", "Contact");
 * ```
 */
export function scriptSnippet(relayUrl: string, formId: string, pin: string, title: string) {
  return `<script src="${attr(`${base(relayUrl)}/embed.js`)}" data-form="${attr(formId)}" ` +
    `data-pin="${attr(pin)}" data-title="${attr(title)}" async></script>`;
}
