import assert from "node:assert/strict";
import { EditTokens } from "../../src/auth/index.ts";

const ID = "0123456789abcdef0123456789abcdef";

Deno.test("EditTokens: derived from the submission id, the same every time, never stored", () => {
  const tokens = new EditTokens(new Uint8Array(32).fill(7));
  const token = tokens.issue(ID);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(
    new EditTokens(new Uint8Array(32).fill(7)).issue(ID),
    token,
    "same secret, same token",
  );
  assert.notEqual(tokens.issue(ID.replace(/^0/, "1")), token, "another submission");
  assert.notEqual(new EditTokens(new Uint8Array(32).fill(8)).issue(ID), token, "another relay");
});

Deno.test("EditTokens.verify: only the submission's own token", () => {
  const tokens = new EditTokens(new Uint8Array(32).fill(7));
  const token = tokens.issue(ID);
  assert.equal(tokens.verify(ID, token), true);
  assert.equal(tokens.verify(ID, token.slice(1)), false);
  assert.equal(tokens.verify(ID, ""), false);
  assert.equal(tokens.verify(ID.replace(/^0/, "1"), token), false);
});
