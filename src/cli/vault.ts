/**
 * The vault's owner commands: `db`, `form`, `records`, `quarantine`. Clients of the `/vault`
 * HTTP API of a running instance, local or remote.
 *
 * @module
 */
import { countFlag, flagOptions, type Parsed, readInput, UsageError } from "./args.ts";
import type { CsvRecord } from "../vault/csv.ts";
import type { SealpostClient } from "./client.ts";
import { formLifecycle, LIFECYCLE_COMMANDS } from "./form_lifecycle.ts";
import { exportRecords } from "./export_records.ts";
import { need, OWNER_OPTIONS, ownerClient, parseLimit, print, runOwnerGroup } from "./owner.ts";
import type { Manifest } from "../forms/manifest.ts";
import { verifyManifest } from "../sdk/manifest.ts";
import { staticFormPage } from "../web/form/static_page.ts";
import { iframeSnippet, scriptSnippet, shareLink } from "../web/links.ts";

const HELP: Record<string, string> = {
  db: `Usage: sealpost db <create|list> [options]

  db create --name NAME   Create a database: a new key pair, registered with the relay
  db list                 The databases of this vault
`,
  form: `Usage: sealpost form <command> [options]

  form create --db ID --title TITLE --fields FILE [--id FORMID] [--publish]
                          Create a form (schema version 1) from a JSON array of fields
  form update FORMID --fields FILE [--title TITLE] [--publish]
                          Archive a new schema version (schemaVersion + 1)
  form update FORMID --retention-days N|off
                          Delete records older than N days (1 to 36500), or keep them
                          all ("off", the default); no new schema version
      --allowed-origins URL,URL  (create, update) only pages of these origins may submit
                          (e.g. https://example.com); "" allows any (the default)
      --submit-label TEXT  (create, update) the form page's submit button ("" for "Submit")
      --files encrypted|plain  (create, update) "encrypted" (the default of new forms):
                          senders encrypt every file to the form's key (age) before
                          uploading; "plain" is the specification's flow
      --drafts on|off     (create, update) let senders keep a draft on this device,
                          encrypted with a key only the page's address holds; "off" (the
                          default): the form page keeps nothing in the browser
  form publish FORMID     Sign the current version's manifest and publish it
  form close FORMID [--message TEXT]
                          Close the form: its page and submissions (and changes to earlier
                          ones) answer "This form is closed." and your message (plain text,
                          at most 500 characters)
  form reopen FORMID      Reopen a closed form: it takes submissions again
  form delete FORMID      Unpublish the form and drop it from the form list; its records
                          are kept until you delete them (records list/delete FORMID)
  form show FORMID        The form at its current version, and every archived version
  form list               The forms of this vault
  form export FORMID [--out FILE]
                          The signed manifest (never any webhook configuration)
  form page FORMID [--out FILE]
                          A static, self-contained form page with the pin baked in, to host
                          anywhere (it submits to the relay; see docs/forms.md)
  form link FORMID        The share link of the hosted form page, and the embed snippets

Example: a fields file (every kind, its options and value shapes: docs/forms.md)
  [
    {"id": "name", "label": "Your name", "kind": "text", "required": true, "maxLength": 200},
    {"id": "email", "label": "Email", "kind": "email", "required": true},
    {"id": "rating", "label": "Rating", "kind": "number", "min": 1, "max": 5, "integer": true},
    {"id": "topic", "label": "Topic", "kind": "choice", "options": ["question", "bug"]},
    {"id": "photo", "label": "Photo", "kind": "image", "accept": ["image/*"]}
  ]
  sealpost form create --db <databaseId> --title "Contact" --fields fields.json --publish
`,
  records: `Usage: sealpost records <command> [options]

  records list FORMID [--limit N]        The first N records (default 20)
  records get FORMID RECORDID            One record
  records delete FORMID RECORDID         Delete a record
  records export FORMID [--format jsonl|csv] [--out FILE] [--with-files DIR]
                          Every record, streamed page by page (JSON Lines by default);
                          progress on stderr when it is a terminal. --with-files: each
                          uploaded file too (decrypted), as DIR/<recordId>/<fieldId>/<name>
`,
  quarantine: `Usage: sealpost quarantine <list|retry> [options]

  quarantine list [--form FORMID]        Envelopes that could not become records, and why
  quarantine retry [ID]                  Process one (or every) quarantined envelope again,
                                         after fixing the form
`,
};

const OPTIONS = {
  ...OWNER_OPTIONS,
  ...flagOptions("string", [
    "name",
    "db",
    "id",
    "title",
    "fields",
    "out",
    "limit",
    "format",
    "form",
    "retention-days",
    "allowed-origins",
    "submit-label",
    "files",
    "drafts",
    "with-files",
    "message",
  ]),
  publish: { type: "boolean" },
} as const;

type Flags = Parsed<typeof OPTIONS>["values"];

async function readFields(path: string | undefined): Promise<unknown> {
  const file = need(path, "--fields FILE");
  const text = await readInput(file, "--fields");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--fields "${file}" is not JSON: ${(err as Error).message}`);
  }
}

type Form = {
  formId: string;
  title: string;
  databaseId: string;
  schemaVersion: number;
  publishedVersion: number | null;
  retentionDays: number | null;
  fields: { id: string; kind: string }[];
  files: "plain" | "encrypted";
  drafts: boolean;
  closed: { message: string } | null;
  deletedAt: string | null;
};
type Row = CsvRecord;

const formLine = (f: Form) =>
  `${f.formId}  v${f.schemaVersion}  ${
    f.publishedVersion ? `published v${f.publishedVersion}` : "unpublished"
  }${f.closed ? "  closed" : ""}${f.deletedAt ? "  deleted" : ""}${
    f.retentionDays ? `  retention ${f.retentionDays}d` : ""
  }  ${f.title}`;

/** The form's signed manifest, checked against this vault's manifest-key fingerprint. */
async function verifiedManifest(client: SealpostClient, form: string) {
  const { fingerprint } = await client.call<{ fingerprint: string }>("GET", "/vault/manifest-key");
  const manifest: Manifest = verifyManifest(
    await client.call("GET", `${form}/manifest`),
    fingerprint,
  );
  return { manifest, pin: fingerprint };
}

/**
 * `--allowed-origins a,b` ("" for any origin), `--submit-label TEXT`,
 * `--files encrypted|plain` and `--drafts on|off` for the API.
 */
function pageSettings(
  flags: Flags,
): { allowedOrigins?: string[]; submitLabel?: string; files?: string; drafts?: boolean } {
  const list = flags["allowed-origins"];
  const label = flags["submit-label"];
  const { files, drafts } = flags;
  if (files !== undefined && files !== "plain" && files !== "encrypted") {
    throw new UsageError(`--files must be "encrypted" or "plain", not "${files}"`);
  }
  if (drafts !== undefined && drafts !== "on" && drafts !== "off") {
    throw new UsageError(`--drafts must be "on" or "off", not "${drafts}"`);
  }
  return {
    ...(files === undefined ? {} : { files }),
    ...(drafts === undefined ? {} : { drafts: drafts === "on" }),
    ...(list === undefined ? {} : {
      allowedOrigins: list.split(",").map((o) => o.trim()).filter(Boolean),
    }),
    ...(label === undefined ? {} : { submitLabel: label }),
  };
}

/** The share link and the two embed snippets of a form. */
function embedText(relayUrl: string, formId: string, pin: string, title: string): string {
  return `share link: ${shareLink(relayUrl, formId, pin)}\n\n` +
    `iframe embed:\n${iframeSnippet(relayUrl, formId, pin, title)}\n\n` +
    `script embed:\n${scriptSnippet(relayUrl, formId, pin, title)}\n`;
}

async function run(group: string, sub: string, args: string[], flags: Flags): Promise<number> {
  const client = await ownerClient(flags);
  if (group === "form" && LIFECYCLE_COMMANDS.includes(sub)) {
    return await formLifecycle(client, sub, args, flags);
  }
  const f = (id: string | undefined) => `/vault/forms/${encodeURIComponent(need(id, "FORMID"))}`;
  switch (`${group} ${sub}`) {
    case "db create": {
      const db = await client.call<{ id: string; fingerprint: string }>(
        "POST",
        "/vault/databases",
        {
          name: need(flags.name, "--name NAME"),
        },
      );
      print(flags, db, () => `database ${db.id}  key fingerprint ${db.fingerprint}`);
      return 0;
    }
    case "db list": {
      const { items } = await client.call<
        { items: { id: string; name: string; fingerprint: string }[] }
      >(
        "GET",
        "/vault/databases",
      );
      print(
        flags,
        items,
        () => items.map((d) => `${d.id}  ${d.name}  ${d.fingerprint}`).join("\n"),
      );
      return 0;
    }
    case "form create": {
      const form = await client.call<Form>("POST", "/vault/forms", {
        databaseId: need(flags.db, "--db ID"),
        title: need(flags.title, "--title TITLE"),
        fields: await readFields(flags.fields),
        ...(flags.id ? { formId: flags.id } : {}),
        ...pageSettings(flags),
        publish: flags.publish ?? false,
      });
      print(flags, form, () => formLine(form));
      return 0;
    }
    case "form update": {
      const retention = flags["retention-days"];
      let form: Form | null = null;
      if (flags.fields !== undefined || retention === undefined) {
        form = await client.call<Form>("PUT", f(args[0]), {
          fields: await readFields(flags.fields),
          ...(flags.title ? { title: flags.title } : {}),
          ...pageSettings(flags),
          publish: flags.publish ?? false,
        });
      }
      if (retention !== undefined) {
        form = await client.call<Form>("PATCH", f(args[0]), {
          retentionDays: retention === "off"
            ? null
            : countFlag("retention-days", retention, 36_500),
        });
      }
      print(flags, form, () => formLine(form!));
      return 0;
    }
    case "form publish": {
      const { form } = await client.call<{ form: Form }>("POST", `${f(args[0])}/publish`);
      print(flags, form, () => formLine(form));
      return 0;
    }
    case "form show": {
      const form = await client.call<Form>("GET", f(args[0]));
      const { items } = await client.call<
        { items: { schemaVersion: number; createdAt: string }[] }
      >(
        "GET",
        `${f(args[0])}/versions`,
      );
      print(
        flags,
        { ...form, versions: items },
        () =>
          `${formLine(form)}\ndatabase ${form.databaseId}\nfiles ${form.files}, drafts ${
            form.drafts ? "on" : "off"
          }\nfields:\n${form.fields.map((x) => `  ${x.id} (${x.kind})`).join("\n")}\nversions: ${
            items.map((v) => `v${v.schemaVersion} ${v.createdAt}`).join(", ")
          }`,
      );
      return 0;
    }
    case "form list": {
      const { items } = await client.call<{ items: Form[] }>("GET", "/vault/forms");
      print(flags, items, () => items.map(formLine).join("\n"));
      return 0;
    }
    case "form export": {
      const manifest = await client.call<unknown>("GET", `${f(args[0])}/manifest`);
      const text = JSON.stringify(manifest, null, 2) + "\n";
      if (flags.out) await Deno.writeTextFile(flags.out, text);
      else console.log(text.trimEnd());
      return 0;
    }
    case "form page":
    case "form link": {
      const { manifest, pin } = await verifiedManifest(client, f(args[0]));
      const text = sub === "page"
        ? staticFormPage(manifest, pin)
        : embedText(manifest.relayUrl, manifest.formId, pin, manifest.title);
      if (flags.out) await Deno.writeTextFile(flags.out, text);
      else console.log(text.trimEnd());
      if (flags.out) console.error(`Wrote ${flags.out}`);
      return 0;
    }
    case "records list": {
      const limit = parseLimit(flags.limit, 20, 1000);
      const { items } = await client.call<{ items: Row[] }>(
        "GET",
        `${f(args[0])}/records?limit=${limit}`,
      );
      print(
        flags,
        items,
        () =>
          items.map((r) => `${r._recordId}  ${r._savedAt}  ${JSON.stringify(r.values)}`).join("\n"),
      );
      return 0;
    }
    case "records get": {
      const record = await client.call<Row>(
        "GET",
        `${f(args[0])}/records/${encodeURIComponent(need(args[1], "RECORDID"))}`,
      );
      print(flags, record, () => JSON.stringify(record, null, 2));
      return 0;
    }
    case "records delete": {
      const id = need(args[1], "RECORDID");
      await client.call("DELETE", `${f(args[0])}/records/${encodeURIComponent(id)}`);
      print(flags, { deleted: id }, () => `Deleted ${id}`);
      return 0;
    }
    case "records export":
      await exportRecords(client, need(args[0], "FORMID"), flags);
      return 0;
    case "quarantine list": {
      const query = flags.form ? `?formId=${encodeURIComponent(flags.form)}` : "";
      const { items } = await client.call<
        { items: { id: string; formId: string; code: string; reason: string }[] }
      >("GET", `/vault/quarantine${query}`);
      print(
        flags,
        items,
        () =>
          items.length === 0
            ? "Quarantine is empty"
            : items.map((q) => `${q.id}  ${q.formId}  ${q.code}: ${q.reason}`).join("\n"),
      );
      return 0;
    }
    case "quarantine retry": {
      const { items } = await client.call<
        { items: { id: string; outcome: string; reason?: string }[] }
      >(
        "POST",
        "/vault/quarantine/retry",
        args[0] ? { id: args[0] } : {},
      );
      print(
        flags,
        items,
        () =>
          items.map((q) => `${q.id}  ${q.outcome}${q.reason ? `: ${q.reason}` : ""}`).join("\n") ||
          "Nothing to retry",
      );
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${group} ${sub}"`);
  }
}

/**
 * Runs `sealpost <db|form|records|quarantine> ...`; resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await vaultCommand(["form", "list", "--json"]));
 * ```
 */
export function vaultCommand(args: string[]): Promise<number> {
  const group = args[0];
  return runOwnerGroup(
    args,
    HELP[group],
    OPTIONS,
    (command, rest, flags) => run(group, command, rest, flags),
  );
}
