/**
 * Every command printed for a user runs as printed on a machine with only Node.js (no `deno` on
 * the PATH; `npx -y deno@PINNED` fetches Deno): the banner `serve` prints on a fresh data dir,
 * and the commands of README.md and docs/*.md (extraction and skip rules: ./_commands.ts).
 *
 * The instance is the README's start command in a copy of the project,
 * `npx -y deno@PINNED task start --port P` (a free port instead of 8080, which may be taken).
 * Substitutions before a command runs:
 * - `http://127.0.0.1:8080` → the instance's URL;
 * - optional parts `[--flag …]` and `[<…>]` are left out;
 * - a synopsis: `<command>` → `--help`, a trailing `…` dropped (the command must print its help);
 * - placeholders, by name without case, spaces, `-` or `_`: `<formId>`/`<demo form id>` the demo
 *   form, `<manifest key>` its manifest-key fingerprint, `<databaseId>` and `<key fingerprint>`
 *   the first database, `<recordId>` a record, `<userId>` the first user, `<webhookId>` and
 *   `<deliveryId>` a webhook (made here, to a receiver of this test) and one of its deliveries,
 *   `whsec_…` that webhook's signing secret, `<url>` a pre-signed read URL of photo.png
 *   (uploaded first); any other `<…>` fails the test;
 * - shell variables the docs take as set: `URL`, `RELAY` (the instance), `TOKEN` (owner token),
 *   `FORM`, `USER_ID`, `HASH` (photo.png's SHA-256), `WEBHOOK_SECRET`, `ERP_SECRET`;
 * - files the commands read, written into the copy first: fields.json (the demo form's fields),
 *   fields-v2.json (plus one optional field), values.json and ada.json (demo values), photo.png,
 *   me.png and cat.png (a PNG), contact.xml (an XML template), erp-bearer.txt.
 * A fenced block runs as one script (its commands share variables); scripts with a `remove` or
 * `delete` command run after the others, which need what they remove.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type DocCommand, extractCommands, type Verdict, verdict } from "./_commands.ts";
import {
  nodeOnlyEnv,
  pinnedDeno,
  projectCopy,
  runScript,
  type ScriptRun,
  startSession,
} from "./_node_only.ts";
import { freePort } from "../_support/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
);

/** README.md, then docs/*.md by name: new docs are read as they appear. */
async function docCommands(): Promise<DocCommand[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(join(ROOT, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  files.sort((a, b) => a === "README.md" ? -1 : b === "README.md" ? 1 : a.localeCompare(b));
  const commands: DocCommand[] = [];
  for (const file of files) {
    commands.push(...extractCommands(file, await Deno.readTextFile(join(ROOT, file))));
  }
  return commands;
}

async function verdicts(): Promise<{ command: DocCommand; verdict: Verdict }[]> {
  const pinned = await pinnedDeno();
  const tasks = Object.keys(JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))).tasks);
  const exists = (path: string) => {
    try {
      Deno.statSync(join(ROOT, path));
      return true;
    } catch {
      return false;
    }
  };
  return (await docCommands()).map((command) => ({
    command,
    verdict: verdict(command, pinned, { tasks, exists }),
  }));
}

const where = (c: DocCommand) => `${c.file}:${c.line}`;

Deno.test("docs: every printed deno/sealpost command runs with only Node.js, or is marked", async () => {
  const all = await verdicts();
  assert.ok(all.length > 50, `only ${all.length} commands extracted`);
  const errors = all.filter(({ verdict }) => verdict.kind === "error")
    .map(({ command, verdict }) =>
      `${where(command)} ${command.text}\n  ${"reason" in verdict ? verdict.reason : ""}`
    );
  assert.deepEqual(errors, []);
});

Deno.test("docs: the extraction and skip rules, on a sample page", () => {
  const page = [
    "Run `npx -y deno@2.9.6 task sealpost db list`; `deno test` names a tool. With Deno",
    "installed: `deno task sealpost db list`.",
    "",
    "Then:",
    "",
    "```sh",
    "npx -y deno@2.9.6 task sealpost records list <formId> \\",
    "  --limit 5   # five",
    "echo '{}' |",
    "  sealpost submit f --values -",
    "```",
    "",
    "```text",
    "$ npx -y deno@2.9.6 task sealpost serve",
    "deno run -A main.ts is output here",
    "```",
    "",
    "```ts",
    'await new Deno.Command("deno", { args: ["run"] });',
    "```",
  ].join("\n");
  const repo = { tasks: ["start", "sealpost"], exists: () => true };
  const found = extractCommands("sample.md", page).map((c) => ({
    line: c.line,
    text: c.text,
    verdict: verdict(c, "2.9.6", repo).kind,
  }));
  assert.deepEqual(found, [
    { line: 1, text: "npx -y deno@2.9.6 task sealpost db list", verdict: "run" },
    { line: 2, text: "deno task sealpost db list", verdict: "skip" },
    {
      line: 7,
      text: "npx -y deno@2.9.6 task sealpost records list <formId> --limit 5",
      verdict: "run",
    },
    { line: 9, text: "echo '{}' | sealpost submit f --values -", verdict: "error" },
    { line: 14, text: "npx -y deno@2.9.6 task sealpost serve", verdict: "skip" },
  ]);
});

Deno.test("console: no page prints a deno or sealpost command of its own", async () => {
  const offenders: string[] = [];
  for await (const file of walk(join(ROOT, "src/console"))) {
    const text = await Deno.readTextFile(file);
    for (const m of text.matchAll(/<code>\s*((?:deno|sealpost|npx) [^<]*)<\/code>/g)) {
      offenders.push(`${file}: ${m[1]}`);
    }
  }
  assert.deepEqual(offenders, []);
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

/** What the placeholders stand for on the test instance. */
interface Values {
  url: string;
  formId: string;
  pin: string;
  databaseId: string;
  dbFingerprint: string;
  recordId: string;
  userId: string;
  webhookId: string;
  deliveryId: string;
  secret: string;
  readUrl: string;
}

/** `text` with the test instance's values in place of the printed placeholders. */
function substitute(text: string, v: Values): string {
  const named: Record<string, string> = {
    formid: v.formId,
    demoformid: v.formId,
    manifestkey: v.pin,
    databaseid: v.databaseId,
    keyfingerprint: v.dbFingerprint,
    recordid: v.recordId,
    userid: v.userId,
    webhookid: v.webhookId,
    deliveryid: v.deliveryId,
    url: v.readUrl,
    command: "--help",
  };
  return text.replaceAll("http://127.0.0.1:8080", v.url)
    .replace(/[ \t]\[(?:--|<)[^\]\n]*\]/g, "")
    .replaceAll("whsec_…", v.secret)
    .replace(/ …(?=\s|$)/g, "")
    .replace(/<([A-Za-z][\w -]*)>/g, (_, name: string) => {
      const value = named[name.toLowerCase().replace(/[\s_-]/g, "")];
      if (value === undefined) throw new Error(`no value for the placeholder <${name}>`);
      return value;
    });
}

Deno.test({
  name: "banner and docs: the printed commands run as printed with no deno on the PATH",
  // The server's process group is read and stopped across the steps.
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async (t) => {
    const pinned = await pinnedDeno();
    const binDir = await Deno.makeTempDir({ prefix: "sealpost-bin-" });
    const env = nodeOnlyEnv(binDir);
    const which = await runScript("command -v deno || true; command -v npx", ROOT, env);
    assert.doesNotMatch(which.stdout, /\/deno\n/, "deno is not on the PATH");
    assert.match(which.stdout, /npx\n$/, "npx is on the PATH");

    const dir = await projectCopy();
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const receiver = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => Response.json({ ok: true }),
    );
    const server = startSession(`npx -y deno@${pinned} task start --port ${port}`, dir, {
      ...env,
      SEALPOST_RATE_LIMITS_ENABLED: "false",
    });
    const prefix = `npx -y deno@${pinned} task sealpost`;
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const run = (script: string, extra: Record<string, string> = {}) =>
      runScript(script, dir, { ...env, ...extra });
    const ok = (r: ScriptRun, what: string) =>
      assert.equal(r.code, 0, `${what}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    const json = async (args: string) => {
      const r = await run(`${prefix} ${args} --json`);
      ok(r, args);
      return JSON.parse(r.stdout);
    };
    try {
      let banner = "";
      await t.step("serve's banner: its try it and then lines run as printed", async () => {
        const end = Date.now() + 120_000;
        while (!/then:/.test(server.stdout()) && Date.now() < end) {
          await new Promise((r) => setTimeout(r, 200));
        }
        banner = server.stdout();
        const tryIt = /^\s*try it:\s+(.+)$/m.exec(banner)?.[1];
        const then = /^\s*then:\s+(.+)$/m.exec(banner)?.[1];
        assert.ok(tryIt && then, `no try it/then lines in:\n${banner}`);
        assert.match(
          tryIt,
          new RegExp(`\\| ${literal(prefix)} submit [0-9a-f]+ --relay ${literal(url)} `),
        );
        assert.match(then, new RegExp(`^${literal(prefix)} records list [0-9a-f]+$`));
        const submitted = await run(tryIt);
        ok(submitted, tryIt);
        assert.match(submitted.stdout, /submissionId: [0-9a-f]{32}/);
        let listed = await run(then);
        for (let i = 0; i < 10 && !/"Ada"/.test(listed.stdout); i++) listed = await run(then);
        ok(listed, then);
        assert.match(listed.stdout, /"name":"Ada"/);
        // The README shows the same lines, ids and port aside.
        const readme = await Deno.readTextFile(join(ROOT, "README.md"));
        const shape = (line: string) =>
          line.replace(/http:\/\/127\.0\.0\.1:\d+/g, "URL").replace(
            /[0-9a-f]{6,}(…[0-9a-f]+)?/g,
            "ID",
          );
        for (const [label, line] of [["try it", tryIt], ["then", then]]) {
          const shown = new RegExp(`^\\s*${label}:\\s+(.+)$`, "m").exec(readme)?.[1];
          assert.equal(shape(shown ?? ""), shape(line), `README's "${label}" line`);
        }
      });

      await t.step("docs: every runnable command, with the instance's values", async () => {
        const formId = /demo form id:\s+(\S+)/.exec(banner)![1];
        const pin = /manifest key:\s+([0-9a-f]{64})/.exec(banner)![1];
        const credentials = JSON.parse(await Deno.readTextFile(join(dir, "data/credentials.json")));
        const [db] = await json("db list");
        const form = await json(`form show ${formId}`);
        const fields = form.fields as { id: string; label?: string }[];
        const text = fields.find((f) => (f as { kind?: string }).kind === "text")!;
        const hook = await json(
          `webhook add --form ${formId} http://127.0.0.1:${receiver.addr.port}/hook --generate-secret`,
        );
        const secret = /"(whsec_[^"]+)"/.exec(JSON.stringify(hook))![1];
        // A record after the webhook, so that it has a delivery.
        const demo = JSON.stringify({ name: "Ada", email: "ada@example.com", rating: 5 });
        ok(
          await run(
            `echo '${demo}' | ${prefix} submit ${formId} --relay ${url} --pin ${pin} --values -`,
          ),
          "submit",
        );
        let deliveries: { id: string }[] = [];
        for (let i = 0; i < 20 && deliveries.length === 0; i++) {
          deliveries = (await json(`deliveries list --webhook ${hook.id}`)).items ?? [];
        }
        assert.ok(deliveries.length > 0, "the webhook has a delivery");
        const [record] = await json(`records list ${formId}`);
        await Deno.writeFile(join(dir, "photo.png"), PNG);
        const blob = await json(`blob put photo.png --user ${credentials.userId} --url ${url}`);
        const read = await fetch(`${url}/submissions/blob/${credentials.userId}/${blob.hash}`, {
          headers: { authorization: `Bearer ${credentials.ownerToken}` },
        });
        assert.equal(read.status, 200);
        const readUrl = (await read.json()).url;
        const values: Values = {
          url,
          formId,
          pin,
          databaseId: db.id,
          dbFingerprint: db.fingerprint,
          recordId: record._recordId,
          userId: credentials.userId,
          webhookId: hook.id,
          deliveryId: deliveries[0].id,
          secret,
          readUrl,
        };
        const files: Record<string, string | Uint8Array> = {
          "fields.json": JSON.stringify(fields),
          "fields-v2.json": JSON.stringify([
            ...fields,
            { ...text, id: "note", label: "Note", required: false },
          ]),
          "values.json": demo,
          "ada.json": demo,
          "photo.png": PNG,
          "me.png": PNG,
          "cat.png": PNG,
          "contact.xml": "<contact><name>{{name}}</name><id>{{_recordId}}</id></contact>\n",
          "erp-bearer.txt": "erp-bearer-token\n",
        };
        for (const [name, content] of Object.entries(files)) {
          if (typeof content === "string") await Deno.writeTextFile(join(dir, name), content);
          else await Deno.writeFile(join(dir, name), content);
        }
        const shellVars = {
          URL: url,
          RELAY: url,
          TOKEN: credentials.ownerToken,
          FORM: formId,
          USER_ID: credentials.userId,
          HASH: blob.hash,
          WEBHOOK_SECRET: secret,
          ERP_SECRET: "whsec_" + "ab".repeat(24),
        };
        const report = await runDocs(await verdicts(), values, (script) => run(script, shellVars));
        console.log(report.summary);
        assert.deepEqual(report.failures, []);
      });
    } finally {
      await server.stop();
      await receiver.shutdown();
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(binDir, { recursive: true });
    }
  },
});

/** Runs the runnable commands (a block as one script), deferring removals; counts and failures. */
async function runDocs(
  all: { command: DocCommand; verdict: Verdict }[],
  values: Values,
  run: (script: string) => Promise<ScriptRun>,
): Promise<{ summary: string; failures: string[] }> {
  type Unit = { at: string; script: string; commands: DocCommand[] };
  const units: Unit[] = [];
  const skipped = new Map<string, number>();
  const skip = (reason: string, n = 1) => skipped.set(reason, (skipped.get(reason) ?? 0) + n);
  const blocks = new Map<object, { command: DocCommand; verdict: Verdict }[]>();
  for (const item of all) {
    if (!item.command.block) {
      if (item.verdict.kind === "run") {
        units.push({
          at: where(item.command),
          script: item.command.text,
          commands: [item.command],
        });
      } else if (item.verdict.kind === "skip") skip(item.verdict.reason);
      continue;
    }
    const list = blocks.get(item.command.block) ?? [];
    list.push(item);
    blocks.set(item.command.block, list);
  }
  for (const items of blocks.values()) {
    const stop = items.find(({ verdict }) => verdict.kind !== "run");
    if (stop) {
      for (const { verdict } of items) {
        skip(
          verdict.kind === "skip"
            ? verdict.reason
            : `in a block with a skipped command (${
              "reason" in stop.verdict ? stop.verdict.reason : ""
            })`,
        );
      }
      continue;
    }
    const block = items[0].command.block!;
    units.push({
      at: `${block.file}:${block.line}`,
      script: block.script,
      commands: items.map(({ command }) => command),
    });
  }
  const removes = (u: Unit) => u.commands.some((c) => /\s(remove|delete)\s/.test(c.text));
  const ordered = [...units.filter((u) => !removes(u)), ...units.filter(removes)];
  const failures: string[] = [];
  let ran = 0;
  let substituted = 0;
  for (const unit of ordered) {
    let script: string;
    try {
      script = substitute(unit.script, values);
    } catch (err) {
      failures.push(`${unit.at}: ${(err as Error).message}`);
      continue;
    }
    ran += unit.commands.length;
    substituted += unit.commands.filter((c) => substitute(c.text, values) !== c.text).length;
    const result = await run(script);
    if (result.code !== 0) {
      failures.push(`${unit.at} exit ${result.code}\n${script}\n${result.stderr.slice(-1500)}`);
    }
  }
  const skippedTotal = [...skipped.values()].reduce((a, b) => a + b, 0);
  const summary = [
    `printed commands: ${all.length} extracted, ${ran} run (${substituted} with substitutions), ` +
    `${skippedTotal} skipped`,
    ...[...skipped].map(([reason, n]) => `  skipped ${n}: ${reason}`),
  ].join("\n");
  return { summary, failures };
}
