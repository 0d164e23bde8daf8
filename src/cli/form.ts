/**
 * `sealpost form ...`: the vault's forms, over the `/vault` HTTP API of a running instance,
 * local or remote: creating one, new schema versions and settings, publishing, the signed
 * manifest and what is built from it (a static page, the share link and embed snippets), and
 * a form's life after publishing (close with a message for senders, reopen, delete: its
 * records are kept until deleted one by one).
 *
 * @module
 */
import { countFlag, readInput, UsageError } from "./args.ts";
import type { SealpostClient } from "./client.ts";
import { need, ownerClient, print, runOwnerGroup } from "./owner.ts";
import { VAULT_OPTIONS, type VaultFlags } from "./vault_flags.ts";
import type { Manifest } from "../forms/manifest.ts";
import { verifyManifest } from "../sdk/manifest.ts";
import { staticFormPage } from "../web/form/static_page.ts";
import { iframeSnippet, scriptSnippet, shareLink } from "../web/links.ts";

const HELP = `Usage: sealpost form <command> [options]

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
`;

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
  flags: VaultFlags,
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

/**
 * `form close|reopen|delete FORMID` of the form at `path`. With `--json` it prints the form as
 * the API answers it (`closed`, `deletedAt`).
 */
async function lifecycle(
  client: SealpostClient,
  sub: string,
  path: string,
  flags: VaultFlags,
): Promise<number> {
  if (sub === "close") {
    const form = await client.call<Form>("POST", `${path}/close`, {
      message: flags.message ?? "",
    });
    print(flags, form, () =>
      `Closed ${form.formId}: its page and submissions now answer ` +
      (form.closed?.message
        ? `"${form.closed.message}"`
        : "with the default words (no --message given)") +
      `\nReopen it with: form reopen ${form.formId}`);
    return 0;
  }
  if (sub === "reopen") {
    const form = await client.call<Form>("POST", `${path}/reopen`);
    print(flags, form, () => `Reopened ${form.formId}: it takes submissions again`);
    return 0;
  }
  await client.call("DELETE", path);
  const form = await client.call<Form>("GET", path);
  print(
    flags,
    form,
    () =>
      `Deleted ${form.formId}: unpublished, and out of the form list. Its records are kept ` +
      `until you delete them (records list ${form.formId}).`,
  );
  return 0;
}

async function run(sub: string, args: string[], flags: VaultFlags): Promise<number> {
  const client = await ownerClient(flags);
  const f = (id: string | undefined) => `/vault/forms/${encodeURIComponent(need(id, "FORMID"))}`;
  if (["close", "reopen", "delete"].includes(sub)) {
    return await lifecycle(client, sub, f(args[0]), flags);
  }
  switch (sub) {
    case "create": {
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
    case "update": {
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
    case "publish": {
      const { form } = await client.call<{ form: Form }>("POST", `${f(args[0])}/publish`);
      print(flags, form, () => formLine(form));
      return 0;
    }
    case "show": {
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
    case "list": {
      const { items } = await client.call<{ items: Form[] }>("GET", "/vault/forms");
      print(flags, items, () => items.map(formLine).join("\n"));
      return 0;
    }
    case "export": {
      const manifest = await client.call<unknown>("GET", `${f(args[0])}/manifest`);
      const text = JSON.stringify(manifest, null, 2) + "\n";
      if (flags.out) await Deno.writeTextFile(flags.out, text);
      else console.log(text.trimEnd());
      return 0;
    }
    case "page":
    case "link": {
      const { manifest, pin } = await verifiedManifest(client, f(args[0]));
      const text = sub === "page"
        ? staticFormPage(manifest, pin)
        : embedText(manifest.relayUrl, manifest.formId, pin, manifest.title);
      if (flags.out) await Deno.writeTextFile(flags.out, text);
      else console.log(text.trimEnd());
      if (flags.out) console.error(`Wrote ${flags.out}`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "form ${sub}"`);
  }
}

/**
 * Runs `sealpost form ...` (`args` starts with `form`); resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await formCommand(["form", "list", "--json"]));
 * ```
 */
export function formCommand(args: string[]): Promise<number> {
  return runOwnerGroup(args, HELP, VAULT_OPTIONS, run);
}
