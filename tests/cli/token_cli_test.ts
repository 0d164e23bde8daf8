/**
 * `sealpost token create|list|revoke` against a running instance: a token printed once,
 * listed without its secret, used, revoked (refused at once); usage errors exit 2, refusals 1.
 */
import assert from "node:assert/strict";
import { sealpost } from "../_support/cli.ts";
import { call, startInstance } from "../_support/server.ts";

Deno.test({
  name: "token CLI: create, list, revoke against a running instance",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const inst = await startInstance();
    try {
      const common = ["--url", inst.url, "--token", inst.credentials.ownerToken];
      const created = await sealpost([
        "token",
        "create",
        "--name",
        "export script",
        "--scopes",
        "records:read, forms:write",
        "--expires-days",
        "30",
        ...common,
      ]);
      assert.equal(created.code, 0, created.stderr);
      const token = /token: +(spt_\S+) \(shown once\)/.exec(created.stdout)?.[1];
      assert.ok(token, created.stdout);
      const id = token.split("_")[1];
      assert.match(created.stdout, new RegExp(`token id: ${id}`));
      assert.match(created.stdout, /scopes: +records:read, forms:write/);
      assert.equal((await call(`${inst.url}/vault/forms`, { token })).status, 200);

      const listed = await sealpost(["token", "list", ...common]);
      assert.equal(listed.code, 0, listed.stderr);
      const line = listed.stdout.split("\n").find((l) => l.startsWith(id));
      assert.ok(line, listed.stdout);
      assert.match(line, /export script {2}records:read,forms:write {2}expires 20/);
      assert.doesNotMatch(line, /last used never/, "its use shows");
      assert.ok(!listed.stdout.includes(token.split("_")[2]), "no secret listed");
      const json = await sealpost(["token", "list", "--json", ...common]);
      const items = JSON.parse(json.stdout);
      assert.equal(items.find((t: { id: string }) => t.id === id).name, "export script");

      // Made through the new token: only its own scopes.
      const wider = await sealpost([
        "token",
        "create",
        "--name",
        "wider",
        "--scopes",
        "webhooks:write",
        "--url",
        inst.url,
        "--token",
        token,
      ]);
      assert.equal(wider.code, 1);
      assert.match(wider.stderr, /lacks the scope "webhooks:write"/);

      const revoked = await sealpost(["token", "revoke", id, ...common]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, new RegExp(`Revoked token ${id}`));
      assert.equal((await call(`${inst.url}/vault/forms`, { token })).status, 401);
      const again = await sealpost(["token", "revoke", id, "--json", ...common]);
      assert.equal(again.code, 1);
      assert.equal(JSON.parse(again.stderr).error.code, "token_not_found");

      for (
        const args of [
          ["token", "create", "--scopes", "records:read"],
          ["token", "create", "--name", "x"],
          ["token", "create", "--name", "x", "--scopes", "records:read", "--expires-days", "1.5"],
          ["token", "revoke"],
          ["token", "frobnicate"],
        ]
      ) {
        const res = await sealpost([...args, ...common]);
        assert.equal(res.code, 2, `${args.join(" ")}: ${res.stdout}${res.stderr}`);
      }
      const help = await sealpost(["token", "--help"]);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /relay:queue +Fetch sealed submissions/);
    } finally {
      await inst.close();
    }
  },
});
