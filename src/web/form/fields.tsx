/**
 * The form's controls, rendered from a list of field definitions (`src/forms/fields.ts`): one
 * native control per field kind, each with a visible `<label for>`, its description and an
 * error slot the control names in `aria-describedby` when it holds a message.
 *
 * A pure hono/jsx component with no browser or server dependency: the relay renders it into
 * the hosted form page, the page's island renders it again from the verified manifest, and the
 * owner console renders it as the form builder's live preview.
 *
 * Control ids are `{idPrefix}{fieldId}` (default prefix `sp-`); a control's `name` is the field
 * id. Extra controls of a field use the id plus a suffix: `-offset` (date-time), `-lat` and
 * `-lng` (geo), `-0`, `-1`, ... (choice options).
 *
 * @module
 */
// deno-lint-ignore-file jsx-key -- rendered to a string, never reconciled: keys would only
// end up as stray `key` attributes in the HTML.
import type { FieldDef } from "../../forms/fields.ts";
import { valueText } from "./values.ts";

/** Props of {@linkcode FormFields}. */
export interface FormFieldsProps {
  /** The fields to render, in order. */
  fields: FieldDef[];
  /** Values to prefill, in their strict shapes (as a payload's `values` holds them). */
  values?: Record<string, unknown>;
  /** Error messages to show, by field id (the control gets `aria-invalid="true"`). */
  errors?: Record<string, string>;
  /** Prefix of every element id (default `sp-`), so two forms can share a page. */
  idPrefix?: string;
}

/** Choice fields with more options than this render as a `<select>`, not radio buttons. */
const MAX_RADIOS = 8;

/** UTC offsets a date-time field offers: every half hour from -12:00 to +14:00, plus :45s. */
export const UTC_OFFSETS: string[] = (() => {
  const minutes = new Set<number>([345, 525, 765]);
  for (let m = -720; m <= 840; m += 30) minutes.add(m);
  return [...minutes].sort((a, b) => a - b).map(offsetText);
})();

/** `+05:45` for 345 minutes, `-03:30` for -210, `+00:00` for 0. */
export function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, "0");
  return `${minutes < 0 ? "-" : "+"}${hh}:${String(abs % 60).padStart(2, "0")}`;
}

interface One {
  f: FieldDef;
  id: string;
  value: unknown;
  error?: string;
}

/** The `aria-*` attributes of a control: its description, and its error when it has one. */
function aria(one: One, group = false) {
  const ids = [one.f.description ? `${one.id}-desc` : "", one.error ? `${one.id}-err` : ""]
    .filter(Boolean).join(" ");
  return {
    "aria-describedby": ids || undefined,
    "aria-invalid": one.error ? "true" : undefined,
    "aria-required": one.f.required && !group ? "true" : undefined,
  };
}

function Label({ one }: { one: One }) {
  return (
    <label for={one.id}>
      {one.f.label}
      {one.f.required ? <span class="req" aria-hidden="true">*</span> : null}
    </label>
  );
}

function Legend({ one }: { one: One }) {
  return (
    <legend>
      {one.f.label}
      {one.f.required ? <span class="req" aria-hidden="true">*</span> : null}
    </legend>
  );
}

function Description({ one }: { one: One }) {
  return one.f.description ? <p class="hint" id={`${one.id}-desc`}>{one.f.description}</p> : null;
}

function ErrorSlot({ one }: { one: One }) {
  return (
    <p class="error" id={`${one.id}-err`} hidden={!one.error}>
      {one.error ?? ""}
    </p>
  );
}

function inputType(kind: FieldDef["kind"]): string {
  return ({ email: "email", url: "url", phone: "tel", number: "number", date: "date" } as Record<
    string,
    string
  >)[kind] ?? "text";
}

function autocomplete(kind: FieldDef["kind"]): string | undefined {
  return ({ email: "email", url: "url", phone: "tel" } as Record<string, string>)[kind];
}

function TextLike({ one }: { one: One }) {
  const f = one.f;
  const extra: Record<string, unknown> = {};
  if (f.kind === "number") {
    extra.step = f.integer ? "1" : "any";
    extra.inputmode = f.integer ? "numeric" : "decimal";
    extra.min = f.min;
    extra.max = f.max;
  }
  if (f.kind === "date") Object.assign(extra, { min: f.min, max: f.max });
  if ((f.kind === "text" || f.kind === "email" || f.kind === "url") && f.maxLength) {
    extra.maxlength = f.maxLength;
  }
  if (f.kind === "list") extra.placeholder = "one, two, three";
  return (
    <div class="field" data-field={f.id} data-kind={f.kind}>
      <Label one={one} />
      <Description one={one} />
      {f.kind === "richText"
        ? (
          <textarea id={one.id} name={f.id} rows={6} maxlength={f.maxLength} {...aria(one)}>
            {valueText(f, one.value)}
          </textarea>
        )
        : (
          <input
            id={one.id}
            name={f.id}
            type={inputType(f.kind)}
            value={valueText(f, one.value)}
            autocomplete={autocomplete(f.kind)}
            {...extra}
            {...aria(one)}
          />
        )}
      {f.kind === "list" ? <p class="hint">Separate tags with commas.</p> : null}
      <ErrorSlot one={one} />
    </div>
  );
}

function Checkbox({ one }: { one: One }) {
  return (
    <div class="field check" data-field={one.f.id} data-kind="boolean">
      <input
        id={one.id}
        name={one.f.id}
        type="checkbox"
        checked={one.value === true}
        {...aria(one)}
      />
      <Label one={one} />
      <Description one={one} />
      <ErrorSlot one={one} />
    </div>
  );
}

function DateTime({ one }: { one: One }) {
  const text = valueText(one.f, one.value);
  const [local, offset] = text ? [text.slice(0, 16), text.slice(16) || "+00:00"] : ["", ""];
  return (
    <div class="field" data-field={one.f.id} data-kind="dateTime">
      <Label one={one} />
      <Description one={one} />
      <div class="row">
        <input id={one.id} name={one.f.id} type="datetime-local" value={local} {...aria(one)} />
        <span class="inline">
          <label class="sub" for={`${one.id}-offset`}>UTC offset</label>
          <select id={`${one.id}-offset`} name={`${one.f.id}-offset`} {...aria(one)}>
            {UTC_OFFSETS.map((o) => <option value={o} selected={o === offset}>{o}</option>)}
          </select>
        </span>
      </div>
      <ErrorSlot one={one} />
    </div>
  );
}

function Choice({ one }: { one: One }) {
  const f = one.f;
  if (f.kind !== "choice") return null;
  const chosen = new Set(Array.isArray(one.value) ? one.value : [one.value]);
  if (!f.multiple && f.options.length > MAX_RADIOS) {
    return (
      <div class="field" data-field={f.id} data-kind="choice">
        <Label one={one} />
        <Description one={one} />
        <select id={one.id} name={f.id} {...aria(one)}>
          <option value="">Choose…</option>
          {f.options.map((o) => <option value={o} selected={chosen.has(o)}>{o}</option>)}
        </select>
        <ErrorSlot one={one} />
      </div>
    );
  }
  return (
    <fieldset
      class="field group"
      id={one.id}
      data-field={f.id}
      data-kind="choice"
      {...aria(one, true)}
    >
      <Legend one={one} />
      <Description one={one} />
      {f.options.map((o, i) => (
        <div class="check">
          <input
            id={`${one.id}-${i}`}
            name={f.id}
            type={f.multiple ? "checkbox" : "radio"}
            value={o}
            checked={chosen.has(o)}
            aria-invalid={one.error ? "true" : undefined}
          />
          <label for={`${one.id}-${i}`}>{o}</label>
        </div>
      ))}
      <ErrorSlot one={one} />
    </fieldset>
  );
}

function Coordinate(
  { one, axis, label, bound }: { one: One; axis: "lat" | "lng"; label: string; bound: number },
) {
  const value = (one.value as Partial<Record<"lat" | "lng", number>> | undefined)?.[axis];
  return (
    <span>
      <label class="sub" for={`${one.id}-${axis}`}>{label}</label>
      <input
        id={`${one.id}-${axis}`}
        name={`${one.f.id}-${axis}`}
        type="number"
        step="any"
        min={-bound}
        max={bound}
        inputmode="decimal"
        value={value === undefined ? "" : String(value)}
        aria-invalid={one.error ? "true" : undefined}
      />
    </span>
  );
}

function Geo({ one }: { one: One }) {
  return (
    <fieldset
      class="field group"
      id={one.id}
      data-field={one.f.id}
      data-kind="geo"
      {...aria(one, true)}
    >
      <Legend one={one} />
      <Description one={one} />
      <div class="row">
        <Coordinate one={one} axis="lat" label="Latitude" bound={90} />
        <Coordinate one={one} axis="lng" label="Longitude" bound={180} />
      </div>
      <button type="button" class="secondary" data-action="locate" data-for={one.f.id}>
        Use my location
      </button>
      <ErrorSlot one={one} />
    </fieldset>
  );
}

function FileInput({ one }: { one: One }) {
  const f = one.f;
  if (f.kind !== "image" && f.kind !== "attachment") return null;
  const accept = f.accept?.join(",") ?? (f.kind === "image" ? "image/*" : undefined);
  const current = valueText(f, one.value);
  return (
    <div class="field" data-field={f.id} data-kind={f.kind}>
      <Label one={one} />
      <Description one={one} />
      <input id={one.id} name={f.id} type="file" accept={accept} {...aria(one)} />
      <p class="hint file-current" id={`${one.id}-current`} hidden={!current}>
        {current ? `Current file: ${current} (choose another file to replace it)` : ""}
      </p>
      {f.kind === "image" ? <img class="preview" id={`${one.id}-preview`} alt="" hidden /> : null}
      <div class="upload" id={`${one.id}-upload`} hidden>
        <progress id={`${one.id}-progress`} max={100} value={0} aria-label={`${f.label} upload`}>
        </progress>
        <span class="status" id={`${one.id}-status`} role="status"></span>
        <button type="button" class="secondary" data-action="retry" data-for={f.id} hidden>
          Retry upload
        </button>
      </div>
      <ErrorSlot one={one} />
    </div>
  );
}

function Field({ one }: { one: One }) {
  switch (one.f.kind) {
    case "boolean":
      return <Checkbox one={one} />;
    case "dateTime":
      return <DateTime one={one} />;
    case "choice":
      return <Choice one={one} />;
    case "geo":
      return <Geo one={one} />;
    case "image":
    case "attachment":
      return <FileInput one={one} />;
    default:
      return <TextLike one={one} />;
  }
}

/**
 * Renders the controls of `fields`, prefilled with `values` and showing `errors`.
 *
 * @example
 * ```tsx
 * import { FormFields } from "./fields.tsx";
 * const html = String(
 *   <FormFields fields={[{ id: "email", label: "Email", kind: "email", required: true }]} />,
 * );
 * ```
 */
export function FormFields(props: FormFieldsProps) {
  const prefix = props.idPrefix ?? "sp-";
  return (
    <>
      {props.fields.map((f) => (
        <Field
          one={{
            f,
            id: prefix + f.id,
            value: props.values?.[f.id],
            error: props.errors?.[f.id],
          }}
        />
      ))}
    </>
  );
}
