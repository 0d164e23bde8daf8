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
  });
  assert.equal(
    embedFrameUrl("https://f.example/embed.js?v=1", "c", PIN),
    `https://f.example/f/c#pin=${PIN}`,
  );
});

Deno.test("fragments: pin alone, upper case, malformed edit parts, nothing", () => {
  assert.deepEqual(parseFragment(`#pin=${PIN.toUpperCase()}`), { pin: PIN, edit: null });
  assert.deepEqual(parseFragment(`pin=${PIN}&submission=xyz&token=t`), { pin: PIN, edit: null });
  assert.deepEqual(parseFragment(`#pin=${PIN}&submission=${ID}`), { pin: PIN, edit: null });
  assert.deepEqual(parseFragment(""), { pin: "", edit: null });
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
