/**
 * Share and edit links (secrets in the fragment only), fragment parsing and embed snippets.
 */
import assert from "node:assert/strict";
import {
  editLink,
  embedFrameUrl,
  iframeSnippet,
  parseFragment,
  scriptSnippet,
  shareLink,
  withDraftKey,
} from "../../src/web/links.ts";

const PIN = "ab".repeat(32);
const ID = "0123456789abcdef0123456789abcdef";

Deno.test("share and edit links keep their secrets in the fragment", () => {
  assert.equal(
    shareLink("https://f.example/", "contact", PIN),
    `https://f.example/f/contact#pin=${PIN}`,
  );
  const link = editLink(`https://f.example/f/contact#pin=${PIN}`, PIN, ID, "tok/en+=");
  const url = new URL(link);
  assert.equal(url.pathname, "/f/contact");
  assert.equal(url.search, "");
  assert.deepEqual(parseFragment(url.hash), {
    pin: PIN,
    edit: { submissionId: ID, editToken: "tok/en+=" },
    draft: "",
  });
  assert.equal(
    embedFrameUrl("https://f.example/embed.js?v=1", "c", PIN),
    `https://f.example/f/c#pin=${PIN}`,
  );
});

Deno.test("fragments: pin alone, upper case, malformed edit parts, nothing", () => {
  const none = { edit: null, draft: "" };
  assert.deepEqual(parseFragment(`#pin=${PIN.toUpperCase()}`), { pin: PIN, ...none });
  assert.deepEqual(parseFragment(`pin=${PIN}&submission=xyz&token=t`), { pin: PIN, ...none });
  assert.deepEqual(parseFragment(`#pin=${PIN}&submission=${ID}`), { pin: PIN, ...none });
  assert.deepEqual(parseFragment(""), { pin: "", ...none });
});

Deno.test("the draft key is set and taken out of the fragment, the pin kept", () => {
  const page = `https://f.example/f/c#pin=${PIN}`;
  const withKey = withDraftKey(page, "k_-1");
  assert.equal(withKey, `${page}&draft=k_-1`);
  assert.deepEqual(parseFragment(new URL(withKey).hash), { pin: PIN, edit: null, draft: "k_-1" });
  assert.equal(withDraftKey(withDraftKey(withKey, "k2"), null), page);
  assert.equal(withDraftKey("https://f.example/f/c", null), "https://f.example/f/c");
});

Deno.test("embed snippets escape what they quote", () => {
  const iframe = iframeSnippet("https://f.example", "c", PIN, 'Say "hi" <now>');
  assert.match(
    iframe,
    /^<iframe src="https:\/\/f\.example\/f\/c#pin=[0-9a-f]{64}" title="Say &quot;hi&quot; &lt;now&gt;"/,
  );
  const script = scriptSnippet("https://f.example/", "c", PIN, "T & U");
  assert.equal(
    script,
    `<script src="https://f.example/embed.js" data-form="c" data-pin="${PIN}" data-title="T &amp; U" async></script>`,
  );
});
