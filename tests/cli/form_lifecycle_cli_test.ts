/**
 * `sealpost form close|reopen|delete` against a spawned server: the relay refuses a closed
 * form's submissions with the owner's message, takes them again once reopened, and forgets a
 * deleted form while its records stay listed; `serve` then says the demo form was deleted.
 */
import assert from "node:assert/strict";
import { sealpost } from "../_support/cli.ts";
import { spawnServer } from "../_support/process.ts";

Deno.test("form close, reopen and delete from the command line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-cli-" });
  const data = `${dir}/data`;
  let server = await spawnServer(data);
  try {
    const common = ["--data", data, "--url", server.url];
    const run = (args: string[]) => sealpost([...args, ...common]);
    const ok = async (args: string[]) => {
      const res = await run(args);
      assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr}`);
      return res.stdout;
    };
    const help = await sealpost(["form", "close", "--help"]);
    assert.equal(help.code, 0);
    for (
      const line of [
        "form close FORMID [--message TEXT]",
        "form reopen FORMID",
        "form delete FORMID",
      ]
    ) {
      assert.ok(help.stdout.includes(line), line);
    }

    const [demo] = JSON.parse(await ok(["form", "list", "--json"]));
    const pin = JSON.parse(await ok(["form", "show", demo.formId, "--json"]));
    assert.equal(pin.closed, null);
    const { fingerprint } = await (await fetch(`${server.url}/vault/manifest-key`, {
      headers: { authorization: `Bearer ${server.credentials.ownerToken}` },
    })).json();
    const submit = async (name: string) => {
      const values = `${dir}/${name}.json`;
      await Deno.writeTextFile(values, JSON.stringify({ name, email: "ada@example.com" }));
      return await sealpost([
        "submit",
        demo.formId,
        "--relay",
        server.url,
        "--pin",
        fingerprint,
        "--values",
        values,
      ]);
    };
    assert.equal((await submit("Ada")).code, 0);

    const message = "Thanks for your feedback!\nThe survey is over.";
    const closedText = await ok(["form", "close", demo.formId, "--message", message]);
    assert.match(closedText, /^Closed f[0-9a-f]+: its page and submissions now answer "Thanks/);
    const refused = await submit("Bob");
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /The survey is over\./);
    assert.match(await ok(["form", "list"]), new RegExp(`^${demo.formId} .* closed `, "m"));
    const again = JSON.parse(await ok(["form", "close", demo.formId, "--json"]));
    assert.deepEqual(again.closed.message, "", "closing again replaces the message");
    const tooLong = await run(["form", "close", demo.formId, "--message", "x".repeat(501)]);
    assert.equal(tooLong.code, 1);
    assert.match(tooLong.stderr, /at most 500 characters/);

    const reopened = JSON.parse(await ok(["form", "reopen", demo.formId, "--json"]));
    assert.equal(reopened.closed, null);
    assert.equal((await submit("Cy")).code, 0);

    const deleted = await ok(["form", "delete", demo.formId]);
    assert.match(deleted, /unpublished, and out of the form list\. Its records are kept/);
    assert.deepEqual(JSON.parse(await ok(["form", "list", "--json"])), []);
    const gone = await submit("Dee");
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /not published|form_not_found|404/);
    const records = await (async () => {
      for (let i = 0; i < 100; i++) {
        const items = JSON.parse(await ok(["records", "list", demo.formId, "--json"]));
        if (items.length === 2) return items;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("The records did not arrive");
    })();
    assert.deepEqual(records.map((r: { values: { name: string } }) => r.values.name).sort(), [
      "Ada",
      "Cy",
    ]);
    const shown = JSON.parse(await ok(["form", "show", demo.formId, "--json"]));
    assert.match(shown.deletedAt, /^\d{4}-/);
    const deletedAgain = JSON.parse(await ok(["form", "delete", demo.formId, "--json"]));
    assert.equal(deletedAgain.formId, demo.formId);
    const unknown = await run(["form", "delete", "nope"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No form "nope"/);

    // The next start does not make the demo form again, and says it was deleted.
    await server.stop();
    server = await spawnServer(data);
    await server.stop();
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL("../../main.ts", import.meta.url).pathname,
        "serve",
        "--data",
        data,
        "--port",
        "0",
      ],
      env: { SEALPOST_SERVER_REQUEST_LOG: "false" },
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    let out = "";
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (!out.includes("console:")) {
      const step = await reader.read();
      if (step.done) break;
      out += step.value;
    }
    child.kill("SIGTERM");
    await reader.cancel();
    await child.status;
    assert.match(out, /console: .*\(the demo form was deleted\)/);
    assert.doesNotMatch(out, /demo form id/);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
