import { sealpost } from "../_support/cli.ts";
import assert from "node:assert/strict";
import { fetchManifest, submitForm } from "../../src/sdk/mod.ts";
import { spawnServer } from "../_support/process.ts";

const FIELDS = [
  { id: "name", label: "Name", kind: "text", required: true },
  { id: "note", label: "Note", kind: "text" },
  { id: "count", label: "Count", kind: "number", integer: true },
  { id: "tags", label: "Tags", kind: "list" },
  // A field id that is also a record member: the CSV must export the field, not the member.
  { id: "values", label: "Values", kind: "text" },
];

/** Minimal RFC 4180 reader, to check that the export round-trips. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  assert.equal(cell + row.join(""), "", "the CSV ends with CRLF");
  return rows;
}

Deno.test("vault CLI against a spawned server: db, form, records, quarantine", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-cli-" });
  const data = `${dir}/data`;
  const server = await spawnServer(data);
  try {
    const common = ["--data", data, "--url", server.url];
    const ok = async (args: string[]) => {
      const res = await sealpost([...args, ...common]);
      assert.equal(res.code, 0, `${args.join(" ")}: ${res.stderr}`);
      return res.stdout;
    };

    // db list: the first run's demo database.
    const dbs = JSON.parse(await ok(["db", "list", "--json"]));
    assert.equal(dbs.length, 1);
    assert.equal(dbs[0].name, "main");
    assert.match(dbs[0].fingerprint, /\S/);
    assert.match(await ok(["db", "list"]), new RegExp(`^${dbs[0].id}  main  `));

    // form create from a fields file, published at once.
    const fieldsFile = `${dir}/fields.json`;
    await Deno.writeTextFile(fieldsFile, JSON.stringify(FIELDS));
    const created = JSON.parse(
      await ok([
        "form",
        "create",
        "--db",
        dbs[0].id,
        "--title",
        "CLI survey",
        "--fields",
        fieldsFile,
        "--id",
        "cli-survey",
        "--publish",
        "--json",
      ]),
    );
    assert.equal(created.formId, "cli-survey");
    assert.equal(created.schemaVersion, 1);
    assert.equal(created.publishedVersion, 1);
    assert.equal(created.databaseId, dbs[0].id);

    const forms = JSON.parse(await ok(["form", "list", "--json"]));
    assert.equal(forms.length, 2, "the demo form and ours");
    assert.ok(forms.some((f: { formId: string }) => f.formId === "cli-survey"));
    assert.match(await ok(["form", "list"]), /^cli-survey {2}v1 {2}published v1 {2}CLI survey$/m);

    const shown = JSON.parse(await ok(["form", "show", "cli-survey", "--json"]));
    assert.deepEqual(shown.fields.map((f: { id: string }) => f.id), [
      "name",
      "note",
      "count",
      "tags",
      "values",
    ]);
    assert.deepEqual(shown.versions.map((v: { schemaVersion: number }) => v.schemaVersion), [1]);
    const shownText = await ok(["form", "show", "cli-survey"]);
    assert.match(shownText, /^ {2}tags \(list\)$/m);
    assert.match(shownText, /^versions: v1 /m);

    const exported = await ok(["form", "export", "cli-survey"]);
    const manifestJson = JSON.parse(exported);
    assert.equal(manifestJson.signature.alg, "ed25519");
    assert.doesNotMatch(exported, /webhook|outbound/i);
    const exportFile = `${dir}/manifest.json`;
    assert.equal(await ok(["form", "export", "cli-survey", "--out", exportFile]), "");
    assert.deepEqual(JSON.parse(await Deno.readTextFile(exportFile)), manifestJson);

    // Two records through the SDK.
    const key = await fetch(`${server.url}/vault/manifest-key`, {
      headers: { authorization: `Bearer ${server.credentials.ownerToken}` },
    });
    const { fingerprint: pin } = await key.json();
    const manifest = await fetchManifest("cli-survey", { relayUrl: server.url, pin });
    const tricky = 'He said "hi", then left';
    const first = await submitForm(manifest, {
      name: "Ada",
      note: tricky,
      count: "3",
      tags: "a,b",
      values: "v1",
    });
    const second = await submitForm(manifest, { name: "Grace" });
    const end = Date.now() + 20_000;
    // deno-lint-ignore no-explicit-any
    let listed: { _recordId: string; _formId: string; _savedAt: string; values: any }[] = [];
    while (Date.now() < end) {
      listed = JSON.parse(await ok(["records", "list", "cli-survey", "--json"]));
      if (listed.length === 2) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(listed.length, 2, "both records arrive");
    const ids = [first.submissionId, second.submissionId].sort();
    assert.deepEqual(listed.map((r) => r._recordId), ids, "record-id order");
    const byId = Object.fromEntries(listed.map((r) => [r._recordId, r]));
    assert.deepEqual(byId[first.submissionId].values, {
      name: "Ada",
      note: tricky,
      count: 3,
      tags: ["a", "b"],
      values: "v1",
    });
    assert.equal(byId[second.submissionId].values.name, "Grace");
    assert.equal(
      JSON.parse(await ok(["records", "list", "cli-survey", "--limit", "1", "--json"])).length,
      1,
    );

    const got = JSON.parse(
      await ok(["records", "get", "cli-survey", first.submissionId, "--json"]),
    );
    assert.deepEqual(got, byId[first.submissionId]);
    assert.equal(got._formId, "cli-survey");

    // JSON Lines export: one record a line, exactly the records.
    const jsonl = await ok(["records", "export", "cli-survey", "--format", "jsonl"]);
    assert.ok(jsonl.endsWith("\n"));
    const lines = jsonl.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.deepEqual(lines.map((l) => JSON.parse(l)), listed);
    assert.equal(await ok(["records", "export", "cli-survey"]), jsonl, "JSON Lines by default");

    // CSV export: a header, one row a record, RFC 4180 quoting that round-trips.
    const csv = await ok(["records", "export", "cli-survey", "--format", "csv"]);
    const rows = parseCsv(csv);
    assert.deepEqual(rows[0], [
      "_recordId",
      "_formId",
      "_savedAt",
      "name",
      "note",
      "count",
      "tags",
      "values",
    ]);
    assert.equal(rows.length, 3);
    const rowOf = (id: string) => rows.find((r) => r[0] === id)!;
    assert.deepEqual(rowOf(first.submissionId), [
      first.submissionId,
      "cli-survey",
      byId[first.submissionId]._savedAt,
      "Ada",
      tricky,
      "3",
      "a, b",
      "v1",
    ]);
    assert.deepEqual(rowOf(second.submissionId), [
      second.submissionId,
      "cli-survey",
      byId[second.submissionId]._savedAt,
      "Grace",
      "",
      "",
      "",
      "",
    ]);
    assert.ok(
      csv.includes(`,"He said ""hi"", then left",3,"a, b",v1\r\n`),
      "the quoted cell, verbatim",
    );
    const csvFile = `${dir}/records.csv`;
    assert.equal(
      await ok(["records", "export", "cli-survey", "--format", "csv", "--out", csvFile]),
      "",
    );
    assert.equal(await Deno.readTextFile(csvFile), csv);
    assert.equal((await Deno.stat(csvFile)).mode! & 0o777, 0o600);

    // records delete, then it is gone.
    assert.equal(
      (await ok(["records", "delete", "cli-survey", second.submissionId])).trim(),
      `Deleted ${second.submissionId}`,
    );
    const after = JSON.parse(await ok(["records", "list", "cli-survey", "--json"]));
    assert.deepEqual(after.map((r: { _recordId: string }) => r._recordId), [first.submissionId]);
    const missing = await sealpost([
      "records",
      "get",
      "cli-survey",
      second.submissionId,
      "--json",
      ...common,
    ]);
    assert.equal(missing.code, 1);
    assert.equal(JSON.parse(missing.stderr).error.code, "record_not_found");

    // Quarantine is empty.
    assert.deepEqual(JSON.parse(await ok(["quarantine", "list", "--json"])), []);
    assert.equal((await ok(["quarantine", "list"])).trim(), "Quarantine is empty");
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vault CLI: --help exits 0, a bad flag or command exits 2 with usage", async () => {
  const commands = [
    ["db"],
    ["db", "list"],
    ["db", "create"],
    ["form"],
    ["form", "create"],
    ["form", "update"],
    ["form", "publish"],
    ["form", "show"],
    ["form", "list"],
    ["form", "export"],
    ["records"],
    ["records", "list"],
    ["records", "get"],
    ["records", "delete"],
    ["records", "export"],
    ["quarantine"],
    ["quarantine", "list"],
    ["quarantine", "retry"],
  ];
  await Promise.all(commands.map(async (command) => {
    const help = await sealpost([...command, "--help"]);
    assert.equal(help.code, 0, `${command.join(" ")} --help: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^Usage: sealpost ${command[0]} `));
    assert.match(help.stdout, /--data DIR/);
  }));
  const badFlag = await sealpost(["records", "list", "x", "--nope"]);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /--nope/);
  assert.match(badFlag.stderr, /Usage: sealpost records /);
  const badFormat = await sealpost([
    "records",
    "export",
    "x",
    "--format",
    "xml",
    "--url",
    "http://127.0.0.1:9",
  ]);
  assert.equal(badFormat.code, 2);
  assert.match(badFormat.stderr, /Unknown --format "xml"/);
  const unknown = await sealpost(["form", "frob"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command "form frob"/);
  assert.match(unknown.stderr, /Usage: sealpost form /);
  const bare = await sealpost(["records"]);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /Usage: sealpost records /);
});
