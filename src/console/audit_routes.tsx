/**
 * The console's Audit page (instance admins): the audit log (src/audit) newest first, in
 * plain words (src/audit/words.ts), filtered by person, database and action, a page at a
 * time; whether the chain verifies now; and how to export and verify it off the server.
 *
 * @module
 */
import { Hono } from "hono";
import { type AuditVerification, verifyAuditStore } from "../audit/verify.ts";
import { auditPage } from "../audit/pages.ts";
import { ACTION_WORDS } from "../audit/words.ts";
import { Invalid } from "../errors/index.ts";
import { AUDIT_ACTIONS, type AuditAction, type AuditEntry } from "../store/ports/audit.ts";
import type { Person } from "../store/ports/people.ts";
import type { ConsoleDeps, ConsoleEnv } from "./context.ts";
import { ColumnHeads, ErrorBox, html, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";

/** The table's columns (each cell names its own as `data-label`, for phones). */
const COLUMNS = ["When (UTC)", "Who", "Did", "Database", "On"];

/** Entries on one page. */
const PAGE_SIZE = 50;

/** The page's filters and cursor, as its query string holds them. */
interface AuditQuery {
  person: string;
  database: string;
  action: AuditAction | "";
  before: number | null;
}

/** The filters of `query` (`?person=&database=&action=&before=`); a 400 for what none can be. */
function auditQuery(query: (name: string) => string | undefined): AuditQuery {
  const action = query("action") ?? "";
  if (action !== "" && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
    throw new Invalid("invalid_request", `No audit action "${action.slice(0, 64)}"`);
  }
  const before = query("before") ?? "";
  if (before !== "" && !/^[1-9][0-9]{0,15}$/.test(before)) {
    throw new Invalid("invalid_request", `Invalid page "${before.slice(0, 64)}"`);
  }
  return {
    person: query("person") ?? "",
    database: query("database") ?? "",
    action: action as AuditAction | "",
    before: before === "" ? null : Number(before),
  };
}

/** The page's address with `query`'s filters and the cursor `before`. */
function pageHref(query: AuditQuery, before: number | null): string {
  const params = new URLSearchParams();
  if (query.person) params.set("person", query.person);
  if (query.database) params.set("database", query.database);
  if (query.action) params.set("action", query.action);
  if (before !== null) params.set("before", String(before));
  const search = params.toString();
  return `/console/audit${search ? `?${search}` : ""}`;
}

/** A person as the page names them: their name and email (the email alone without a name). */
function personWords(person: Person): string {
  return person.name ? `${person.name} (${person.email})` : person.email;
}

/** Who did it, in words: the person's name and email, or who acts without signing in. */
function who(entry: AuditEntry, people: Map<string, Person>): string {
  const { personId, tokenId, detail } = entry.event;
  if (personId === null) {
    return detail?.via === "cli" ? "Someone at the server's command line" : "Someone not signed in";
  }
  const person = people.get(personId);
  const name = person ? personWords(person) : `A removed person (${personId})`;
  return tokenId ? `${name}, with an API token` : name;
}

/** What it was done to: the target's kind in words and its id, a form linked. */
function Target({ entry }: { entry: AuditEntry }) {
  const target = entry.event.target;
  if (!target) return null;
  const kind = target.kind.replaceAll("_", " ");
  // A form is named by its id, a record by its form's and its own: `formId/recordId`.
  const [formId, recordId] = target.id.split("/").map(encodeURIComponent);
  if (target.kind === "form") {
    return <a href={`/console/forms/${formId}`}>{`${kind} ${target.id}`}</a>;
  }
  if (target.kind === "record" && recordId) {
    return <a href={`/console/forms/${formId}/records/${recordId}`}>{`${kind} ${target.id}`}</a>;
  }
  return <>{`${kind} ${target.id}`}</>;
}

/** A detail's name in words: `schemaVersion` and `schema_version` are "schema version". */
function words(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, "$1 $2").replaceAll("_", " ").toLowerCase();
}

/** The small facts of an entry (a role, a count, a format), and whether it failed. */
function Facts({ entry }: { entry: AuditEntry }) {
  const facts = Object.entries(entry.event.detail ?? {})
    .filter(([name]) => name !== "via")
    .map(([name, value]) => `${words(name)}: ${value}`);
  // "failed to sign in" says so already.
  if (entry.event.outcome === "failure" && !ACTION_WORDS[entry.event.action].includes("fail")) {
    facts.unshift("it failed");
  }
  return facts.length > 0 ? <span class="muted">{` (${facts.join(", ")})`}</span> : null;
}

/** Whether the chain verifies now, in words. */
function Verification({ result }: { result: AuditVerification }) {
  if (!result.ok) {
    return <ErrorBox text={`The audit log does not verify now: ${result.problem.message}.`} />;
  }
  const from = result.from.seq === 0
    ? "from its start"
    : `from the signed checkpoint at entry ${result.from.seq} (older entries were pruned)`;
  return (
    <p class="notice" role="status">
      {`The audit log verifies now: ${result.entries} entries ${from}, each chained to the one ` +
        `before, none changed, removed or reordered.`}
    </p>
  );
}

/** One filter of the page: a labelled choice of `choices` (`[value, words]`), or `all`. */
function Filter(
  { name, label, all, value, choices }: {
    name: string;
    label: string;
    all: string;
    value: string;
    choices: [string, string][];
  },
) {
  return (
    <div>
      <label for={name}>{label}</label>
      <select id={name} name={name}>
        <option value="">{all}</option>
        {choices.map(([v, words]) => <option value={v} selected={v === value}>{words}</option>)}
      </select>
    </div>
  );
}

function AuditPage(props: {
  session: Session;
  query: AuditQuery;
  entries: AuditEntry[];
  next: number | null;
  people: Person[];
  databases: { id: string; name: string }[];
  verification: AuditVerification;
}) {
  const { session, query, entries, next } = props;
  const people = new Map(props.people.map((p) => [p.id, p]));
  const databases = new Map(props.databases.map((d) => [d.id, d.name]));
  const filtered = query.person !== "" || query.database !== "" || query.action !== "";
  return (
    <Page title="Audit" session={session}>
      <p>
        Who did what on this instance: sign-ins, changes to people, tokens, forms and webhooks,
        records viewed, exported and deleted, keys exported and backups. The log never holds what
        was submitted, a password, a token or a secret.
      </p>
      <Verification result={props.verification} />
      <p>
        To keep proof away from this server, export the log on it with the command line's{" "}
        <code>audit export</code> command and keep the file elsewhere; its <code>audit verify</code>
        {" "}
        command checks a file and names the first entry that was changed, removed or reordered; a
        later export must still hold the head of an earlier one (docs/operations.md, "Audit log").
      </p>
      <form method="get" action="/console/audit" class="filters" role="search">
        <Filter
          name="person"
          label="Person"
          all="Everyone"
          value={query.person}
          choices={props.people.map((p) => [p.id, personWords(p)])}
        />
        <Filter
          name="database"
          label="Database"
          all="Every database"
          value={query.database}
          choices={props.databases.map((d) => [d.id, d.name])}
        />
        <Filter
          name="action"
          label="Action"
          all="Every action"
          value={query.action}
          choices={AUDIT_ACTIONS.map((a) => [a, ACTION_WORDS[a]])}
        />
        <div>
          <button type="submit">Show</button>
        </div>
      </form>
      {entries.length === 0
        ? <p>{filtered ? "No entry matches these filters." : "Nothing is recorded yet."}</p>
        : (
          <table class="stack">
            <ColumnHeads names={COLUMNS} />
            <tbody>
              {entries.map((entry) => (
                <tr>
                  <td data-label={COLUMNS[0]}>
                    <time datetime={entry.at}>{entry.at.replace("T", " ").slice(0, 19)}</time>
                  </td>
                  <td data-label={COLUMNS[1]}>{who(entry, people)}</td>
                  <td data-label={COLUMNS[2]}>
                    {ACTION_WORDS[entry.event.action]}
                    <Facts entry={entry} />
                  </td>
                  <td data-label={COLUMNS[3]}>
                    {entry.event.databaseId
                      ? databases.get(entry.event.databaseId) ?? entry.event.databaseId
                      : ""}
                  </td>
                  <td data-label={COLUMNS[4]}>
                    <Target entry={entry} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      <nav aria-label="Pages">
        {query.before !== null && <a href={pageHref(query, null)}>Newest entries</a>}{" "}
        {next !== null && <a href={pageHref(query, next)}>Older entries</a>}
      </nav>
    </Page>
  );
}

/**
 * Mounts the Audit page.
 *
 * @example
 * ```ts
 * app.route("/", auditRoutes(deps));
 * ```
 */
export function auditRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault } = deps;

  app.get("/console/audit", async (c) => {
    vault.access.admin(c.var.session);
    const query = auditQuery((name) => c.req.query(name));
    const page = await auditPage(vault.store.audit, {
      limit: PAGE_SIZE,
      ...(query.before !== null ? { before: query.before } : {}),
      ...(query.person ? { personId: query.person } : {}),
      ...(query.database ? { databaseId: query.database } : {}),
      ...(query.action ? { action: query.action } : {}),
    });
    const [people, databases, key] = await Promise.all([
      vault.store.people.list(),
      vault.store.vaultDatabases.list(),
      vault.keys.manifestKey(),
    ]);
    const verification = await verifyAuditStore(vault.store.audit, key.publicKey);
    return c.html(html(
      <AuditPage
        session={c.var.session}
        query={query}
        entries={page.items}
        next={page.next}
        people={people}
        databases={databases}
        verification={verification}
      />,
    ));
  });

  return app;
}
