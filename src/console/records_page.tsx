/**
 * The records table of a form (search, date range, sort, pages) with its chart of submissions
 * per day, and the record page with every saved version.
 *
 * @module
 */
import type { FieldDef } from "../forms/fields.ts";
import type { RecordVersion } from "../store/ports/records.ts";
import type { VaultForm, VaultRecord } from "../vault/index.ts";
import { ActionButton, ColumnHeads, FormTabs, Notice, Page } from "./layout.tsx";
import { PAGE_SIZE, type RecordQuery, SORTS, usesIndex } from "./record_query.ts";
import type { Session } from "./sessions.ts";
import { type FileUrls, Value, valueText } from "./values.tsx";

/** A bar chart of submissions per day, as SVG (no script). */
export function DayChart({ days }: { days: { day: string; count: number }[] }) {
  const max = Math.max(1, ...days.map((d) => d.count));
  const total = days.reduce((sum, d) => sum + d.count, 0);
  const height = 100;
  const bar = 18;
  const label = `Submissions per day, last ${days.length} days: ${total} in all`;
  return (
    <figure>
      <svg
        class="chart"
        role="img"
        aria-label={label}
        width={days.length * (bar + 4)}
        height={height + 30}
        viewBox={`0 0 ${days.length * (bar + 4)} ${height + 30}`}
      >
        <title>{label}</title>
        {days.map((d, i) => {
          const h = Math.round((d.count / max) * height);
          return (
            <rect x={i * (bar + 4)} y={height - h} width={bar} height={h}>
              <title>{`${d.day}: ${d.count}`}</title>
            </rect>
          );
        })}
        <text x="0" y={height + 14}>{days[0]?.day}</text>
        <text x={Math.max(0, days.length * (bar + 4) - 62)} y={height + 14}>
          {days.at(-1)?.day}
        </text>
        <text x="0" y={height + 28}>{`max ${max}/day`}</text>
      </svg>
      <figcaption class="muted">{label}</figcaption>
    </figure>
  );
}

/** Props of {@linkcode RecordsPage}. */
export interface RecordsPageProps {
  session: Session;
  form: VaultForm;
  query: RecordQuery;
  records: VaultRecord[];
  total: number;
  /** The next page's cursor (time-index views), else null. */
  nextCursor: string | null;
  days: { day: string; count: number }[];
  urls: FileUrls;
  done?: string;
}

function pageLink(formId: string, query: RecordQuery, page: number | string): string {
  const params = new URLSearchParams();
  if (query.q) params.set("q", query.q);
  if (query.from) params.set("from", query.from);
  if (query.to) params.set("to", query.to);
  if (query.sort !== "newest") params.set("sort", query.sort);
  if (typeof page === "number") params.set("page", String(page));
  else if (page) params.set("cursor", page);
  return `/console/forms/${encodeURIComponent(formId)}/records?${params}`;
}

/** Previous/next links: page numbers when searching, cursors of the time index otherwise. */
function Pager({ props }: { props: RecordsPageProps }) {
  const { form, query, total } = props;
  if (usesIndex(query)) {
    return (
      <nav aria-label="Pages">
        {query.cursor && <a href={pageLink(form.formId, query, "")}>First page</a>}{" "}
        {props.nextCursor && <a href={pageLink(form.formId, query, props.nextCursor)}>Next</a>}
      </nav>
    );
  }
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  return (
    <nav aria-label="Pages">
      {query.page > 1 && <a href={pageLink(form.formId, query, query.page - 1)}>Previous</a>}
      {` Page ${query.page} of ${pages} `}
      {query.page < pages && <a href={pageLink(form.formId, query, query.page + 1)}>Next</a>}
    </nav>
  );
}

/** The records table of a form. */
export function RecordsPage(props: RecordsPageProps) {
  const { form, query, records, total, session } = props;
  const base = `/console/forms/${encodeURIComponent(form.formId)}`;
  const shown: FieldDef[] = form.fields;
  return (
    <Page title={`Records of ${form.title}`} session={session}>
      <FormTabs formId={form.formId} current="Records" />
      <Notice text={props.done} />
      <DayChart days={props.days} />
      <form method="get" action={`${base}/records`} class="filters" role="search">
        <div>
          <label for="q">Search</label>
          <input id="q" name="q" type="search" value={query.q} />
        </div>
        <div>
          <label for="from">Received from</label>
          <input id="from" name="from" type="date" value={query.from} />
        </div>
        <div>
          <label for="to">Received to</label>
          <input id="to" name="to" type="date" value={query.to} />
        </div>
        <div>
          <label for="sort">Sort</label>
          <select id="sort" name="sort">
            {Object.entries(SORTS).map(([value, label]) => (
              <option value={value} selected={value === query.sort}>{label}</option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit">Apply</button>
        </div>
      </form>
      <p>
        {`${total} record${total === 1 ? "" : "s"}. Export: `}
        <a href={`${base}/export.csv`}>CSV</a> · <a href={`${base}/export.jsonl`}>JSONL</a>
      </p>
      <table>
        <ColumnHeads names={["Received", ...shown.map((f) => f.label || f.id), "Record"]} />
        <tbody>
          {records.map((r) => (
            <tr>
              <td>{r._createdAt.replace("T", " ").slice(0, 19)}</td>
              {shown.map((f) => (
                <td class="value">
                  <Value field={f} value={r.values[f.id]} urls={props.urls} />
                </td>
              ))}
              <td>
                <a href={`${base}/records/${encodeURIComponent(r._recordId)}`}>Open</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager props={props} />
    </Page>
  );
}

function changedFields(
  fields: FieldDef[],
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
) {
  if (!before || !after) return [];
  return fields.filter((f) => JSON.stringify(before[f.id]) !== JSON.stringify(after[f.id]));
}

/** Props of {@linkcode RecordPage}. */
export interface RecordPageProps {
  session: Session;
  form: VaultForm;
  record: VaultRecord;
  versions: RecordVersion[];
  urls: FileUrls;
}

/** One record: its values and every saved version (amendments), with delete. */
export function RecordPage({ session, form, record, versions, urls }: RecordPageProps) {
  const base = `/console/forms/${encodeURIComponent(form.formId)}`;
  return (
    <Page title={`Record ${record._recordId}`} session={session}>
      <FormTabs formId={form.formId} current="Records" />
      <p>
        <a href={`${base}/records`}>All records</a>
      </p>
      <table>
        <tbody>
          <tr>
            <th scope="row">Received</th>
            <td>{record._createdAt}</td>
          </tr>
          <tr>
            <th scope="row">Saved</th>
            <td>{record._savedAt}</td>
          </tr>
          <tr>
            <th scope="row">Schema version</th>
            <td>{record._schemaVersion}</td>
          </tr>
          <tr>
            <th scope="row">Submission</th>
            <td>{record._submissionId ?? "created by the owner"}</td>
          </tr>
          {form.fields.map((f) => (
            <tr>
              <th scope="row">{f.label || f.id}</th>
              <td class="value">
                <Value field={f} value={record.values[f.id]} urls={urls} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        <a href={`${base}/records/${encodeURIComponent(record._recordId)}/delete`}>
          Delete this record…
        </a>
      </p>
      <h2>Versions</h2>
      <ol>
        {versions.map((v, i) => (
          <li>
            <p>
              {`${v.savedAt}: ${v.reason === "insert" ? "received" : "amended"}`}
              {v.submissionVersion > 0 ? ` (submission version ${v.submissionVersion})` : ""}
              {`, schema v${v.schemaVersion}`}
            </p>
            {v.values === null
              ? <p class="muted">Values too large to keep in the history.</p>
              : (
                <ul>
                  {(i === 0 ? form.fields : changedFields(
                    form.fields,
                    versions[i - 1].values,
                    v.values,
                  )).map((f) => (
                    <li>
                      {`${f.label || f.id}: `}
                      {i > 0 && <del>{valueText(versions[i - 1].values?.[f.id])}</del>}{" "}
                      <ins>
                        {valueText(v.values?.[f.id])}
                      </ins>
                    </li>
                  ))}
                </ul>
              )}
          </li>
        ))}
      </ol>
    </Page>
  );
}

/** The confirmation before a record is deleted. */
export function DeletePage(
  { session, form, recordId }: { session: Session; form: VaultForm; recordId: string },
) {
  const record = `/console/forms/${encodeURIComponent(form.formId)}/records/${
    encodeURIComponent(recordId)
  }`;
  return (
    <Page title={`Delete record ${recordId}?`} session={session}>
      <FormTabs formId={form.formId} current="Records" />
      <p>
        The record and every saved version of it are deleted for good; webhooks that listen to
        delete events are told.
      </p>
      <ActionButton session={session} action={`${record}/delete`} label="Delete record" danger />
      <p>
        <a href={record}>Keep it</a>
      </p>
    </Page>
  );
}
