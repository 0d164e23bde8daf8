/**
 * The form builder page: every field with the options of its kind, buttons to add, remove
 * and reorder fields, a preview of the form, and publish (a new schema version).
 *
 * @module
 */
import { FIELD_KINDS, type FieldDef, FieldDefSchema } from "../forms/fields.ts";
import { FormFields } from "../web/form/fields.tsx";
import { FORM_STYLE_PATH } from "./assets.ts";
import { type BuilderSettings, type DraftField, KIND_OPTIONS } from "./builder_form.ts";
import { Csrf, ErrorBox } from "./layout.tsx";
import type { Session } from "./sessions.ts";

const OPTION_LABELS: Record<string, string> = {
  minLength: "Minimum length",
  maxLength: "Maximum length",
  pattern: "Pattern (regular expression, whole value)",
  min: "Minimum",
  max: "Maximum",
  integer: "Whole numbers only",
  options: "Choices (one a line)",
  multiple: "Several may be picked",
  minItems: "Minimum items",
  maxItems: "Maximum items",
  maxItemLength: "Maximum item length",
  accept: "Accepted types (comma-separated, e.g. image/*, application/pdf)",
  maxSizeBytes: "Maximum size in bytes",
};

function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  return Array.isArray(value) ? value.join(", ") : String(value);
}

function OptionInput({ i, name, f }: { i: number; name: string; f: DraftField }) {
  const id = `f-${i}-${name}`;
  const key = `f.${i}.${name}`;
  if (name === "integer" || name === "multiple") {
    return (
      <label class="check" for={id}>
        <input id={id} type="checkbox" name={key} checked={f[name] === true} />{" "}
        {OPTION_LABELS[name]}
      </label>
    );
  }
  if (name === "options") {
    return (
      <>
        <label for={id}>{OPTION_LABELS[name]}</label>
        <textarea id={id} name={key}>{((f.options as string[]) ?? []).join("\n")}</textarea>
      </>
    );
  }
  return (
    <>
      <label for={id}>{OPTION_LABELS[name]}</label>
      <input id={id} type="text" name={key} value={text(f[name])} />
    </>
  );
}

function FieldEditor({ f, i }: { f: DraftField; i: number }) {
  return (
    <fieldset>
      <legend>{`Field ${i + 1}: ${f.label || f.id} (${f.kind})`}</legend>
      <label for={`f-${i}-id`}>Field id</label>
      <input id={`f-${i}-id`} type="text" name={`f.${i}.id`} value={f.id} required />
      <label for={`f-${i}-label`}>Label</label>
      <input id={`f-${i}-label`} type="text" name={`f.${i}.label`} value={text(f.label)} />
      <label for={`f-${i}-kind`}>Kind</label>
      <select id={`f-${i}-kind`} name={`f.${i}.kind`}>
        {FIELD_KINDS.map((k) => <option selected={k === f.kind}>{k}</option>)}
      </select>
      <label for={`f-${i}-description`}>Help text</label>
      <input
        id={`f-${i}-description`}
        type="text"
        name={`f.${i}.description`}
        value={text(f.description)}
      />
      <label class="check" for={`f-${i}-required`}>
        <input
          id={`f-${i}-required`}
          type="checkbox"
          name={`f.${i}.required`}
          checked={f.required === true}
        />{" "}
        Required
      </label>
      {KIND_OPTIONS[f.kind].map((name) => <OptionInput i={i} name={name} f={f} />)}
      <div>
        {i > 0 && (
          <button type="submit" name="action" value={`up:${i}`} class="secondary">
            {`Move “${f.label || f.id}” up`}
          </button>
        )}
        <button type="submit" name="action" value={`remove:${i}`} class="secondary">
          {`Remove “${f.label || f.id}”`}
        </button>
      </div>
    </fieldset>
  );
}

/**
 * The preview's document: the real form page's controls (`FormFields`, as the relay renders
 * them) and its style sheet, shown in a sandboxed frame (no script runs in it); and the fields
 * not valid yet, with what is wrong, which it leaves out.
 *
 * @example
 * ```ts
 * const { doc, problems } = previewDocument("Contact", [{ id: "a", kind: "text", label: "A" }]);
 * ```
 */
export function previewDocument(
  title: string,
  fields: DraftField[],
): { doc: string; problems: string[] } {
  const valid: FieldDef[] = [];
  const problems: string[] = [];
  for (const f of fields) {
    const parsed = FieldDefSchema.safeParse(f);
    if (parsed.success) valid.push(parsed.data);
    else problems.push(`${f.id || "(no id)"}: ${parsed.error.issues[0].message}`);
  }
  const doc = "<!doctype html>" + String(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>{`Preview of ${title}`}</title>
        <link rel="stylesheet" href={FORM_STYLE_PATH} />
      </head>
      <body>
        <main>
          <div class="card">
            <h1>{title}</h1>
            <form>
              <FormFields fields={valid} idPrefix="pv-" />
              <div class="actions">
                <button type="submit" disabled>Submit</button>
              </div>
            </form>
          </div>
        </main>
      </body>
    </html>,
  );
  return { doc, problems };
}

/** The preview section (the island replaces its frame's document as the owner types). */
function FormPreview({ title, fields }: { title: string; fields: DraftField[] }) {
  const { doc, problems } = previewDocument(title, fields);
  return (
    <section class="preview" aria-labelledby="form-preview">
      <h2 id="form-preview">Preview</h2>
      <ul class="error preview-problems" hidden={problems.length === 0}>
        {problems.map((p) => <li>{`Not shown yet: ${p}`}</li>)}
      </ul>
      <iframe class="form-preview" title="Preview of the form" sandbox="" srcdoc={doc}>
      </iframe>
    </section>
  );
}

/** Where the console island posts the builder's form for a live preview. */
export const PREVIEW_URL = "/console/preview/form";

/** Props of {@linkcode Builder}. */
export interface BuilderProps {
  session: Session;
  action: string;
  title: string;
  fields: DraftField[];
  settings: BuilderSettings;
  error?: string | null;
  /** Databases to pick from (new forms only). */
  databases?: { id: string; name: string }[];
  formId?: string;
}

/** The two page settings, signed into the manifest with the fields. */
function SettingsBox({ settings }: { settings: BuilderSettings }) {
  return (
    <fieldset>
      <legend>Privacy of senders</legend>
      <label class="check" for="encryptFiles">
        <input
          id="encryptFiles"
          type="checkbox"
          name="encryptFiles"
          checked={settings.files === "encrypted"}
          aria-describedby="encryptFiles-help"
        />{" "}
        Encrypt uploaded files
      </label>
      <p class="muted" id="encryptFiles-help">
        On: each file is encrypted in the sender's browser to this form's key, so the server stores
        only ciphertext that you alone can open. Off: files are stored as sent, readable by the
        server (the plain upload flow, for senders that do not encrypt).
      </p>
      <label class="check" for="drafts">
        <input
          id="drafts"
          type="checkbox"
          name="drafts"
          checked={settings.drafts}
          aria-describedby="drafts-help"
        />{" "}
        Let senders keep a draft on this device
      </label>
      <p class="muted" id="drafts-help">
        Off: the form page keeps nothing in the sender's browser. On: unsent answers are kept there,
        encrypted with a key only the page's address holds, until sent or forgotten.
      </p>
    </fieldset>
  );
}

/** The builder form. */
export function Builder(props: BuilderProps) {
  const { fields } = props;
  return (
    <>
      <ErrorBox text={props.error} />
      <div class="builder">
        <form method="post" action={props.action} data-live-preview={PREVIEW_URL}>
          <Csrf session={props.session} />
          <label for="title">Title</label>
          <input id="title" type="text" name="title" value={props.title} required />
          {props.databases && (
            <>
              <label for="formId">Form id (optional)</label>
              <input id="formId" type="text" name="formId" value={props.formId ?? ""} />
              <label for="databaseId">Database</label>
              <select id="databaseId" name="databaseId">
                {props.databases.map((d) => <option value={d.id}>{`${d.name} (${d.id})`}</option>)}
              </select>
            </>
          )}
          <SettingsBox settings={props.settings} />
          {fields.map((f, i) => <FieldEditor f={f} i={i} />)}
          <fieldset>
            <legend>Add a field</legend>
            <label for="newKind">Kind of the new field</label>
            <select id="newKind" name="newKind">
              {FIELD_KINDS.map((k) => <option>{k}</option>)}
            </select>
            <button type="submit" name="action" value="add" class="secondary">Add field</button>
          </fieldset>
          <div>
            <button type="submit" name="action" value="preview" class="secondary">
              Update preview
            </button>
            <button type="submit" name="action" value="publish">Publish new version</button>
          </div>
        </form>
        <FormPreview title={props.title} fields={fields} />
      </div>
    </>
  );
}
