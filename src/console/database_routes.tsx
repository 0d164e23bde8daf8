/**
 * Databases in the console: the list of the person's databases with their role, a database's
 * overview (its key, its forms, the person's role), and its Members page (owners only:
 * members_page.tsx) with inviting, changing roles and removing.
 *
 * @module
 */
import { Hono } from "hono";
import { Conflict, Invalid, NotFound } from "../errors/index.ts";
import { NEED } from "../people/access.ts";
import type { Role } from "../store/ports/memberships.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import { type ConsoleDeps, type ConsoleEnv, field, formBody } from "./context.ts";
import { ColumnHeads, html, Notice, Page } from "./layout.tsx";
import { DatabaseTabs, MembersPage, type MembersPageProps, ROLES } from "./members_page.tsx";
import type { Session } from "./sessions.ts";

/** A form body as `formBody` reads it. */
type FormFields = Awaited<ReturnType<typeof formBody>>;

/** What a database or person id in a path can be. */
const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The path parameter `name`, or the 404 of a database or member that cannot exist. */
function idParam(value: string, what: "database" | "member"): string {
  if (!ID.test(value)) {
    throw new NotFound(`${what}_not_found`, `No ${what} "${value.slice(0, 64)}"`);
  }
  return value;
}

function roleOf(value: string): Role {
  const found = ROLES.find((r) => r.role === value);
  if (!found) throw new Invalid("invalid_role", `Unknown role "${value.slice(0, 32)}"`, "role");
  return found.role;
}

function DatabasesPage(
  { session, rows }: { session: Session; rows: { db: VaultDatabase; role: Role }[] },
) {
  return (
    <Page title="Databases" session={session}>
      <p>
        A database is a key pair: the forms of a database seal their answers to its key. Its members
        see its forms and records as their role allows.
      </p>
      {rows.length === 0 ? <p>You are a member of no database yet.</p> : (
        <table>
          <ColumnHeads names={["Name", "Your role", "Key fingerprint"]} />
          <tbody>
            {rows.map(({ db, role }) => (
              <tr>
                <td>
                  <a href={`/console/databases/${encodeURIComponent(db.id)}`}>{db.name}</a>
                </td>
                <td>{role}</td>
                <td>
                  <code>{db.fingerprint}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

function DatabasePage(
  { session, db, role, forms, done }: {
    session: Session;
    db: VaultDatabase;
    role: Role;
    forms: { formId: string; title: string }[];
    done?: string;
  },
) {
  return (
    <Page title={`Database “${db.name}”`} session={session}>
      <DatabaseTabs db={db} current="Overview" owner={role === "owner"} />
      <Notice text={done} />
      <p>
        Your role here: <strong>{role}</strong> ({ROLES.find((r) => r.role === role)!.text}).
      </p>
      <p>
        Key fingerprint: <code>{db.fingerprint}</code>
      </p>
      <h2>Forms</h2>
      {forms.length === 0 ? <p>No forms in this database yet.</p> : (
        <ul>
          {forms.map((f) => (
            <li>
              <a href={`/console/forms/${encodeURIComponent(f.formId)}`}>{f.title}</a>{" "}
              (<code>{f.formId}</code>)
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

/** Mounts the database pages and the Members page. */
export function databaseRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault } = deps;
  const { members, invitations } = deps.people;

  app.get("/console/databases", async (c) => {
    const session = c.var.session;
    const dbs = await vault.listDatabases(vault.access.gate(session, NEED.read));
    const roles = new Map(
      (await vault.store.memberships.ofPerson(session.personId)).map((m) => [m.databaseId, m.role]),
    );
    const rows = dbs.map((db) => ({ db, role: roles.get(db.id)! }));
    return c.html(html(<DatabasesPage session={session} rows={rows} />));
  });

  app.get("/console/databases/:dbId", async (c) => {
    const session = c.var.session;
    const dbId = idParam(c.req.param("dbId"), "database");
    const gate = vault.access.gate(session, NEED.read);
    const db = await vault.database(gate, dbId);
    const member = await vault.store.memberships.get(db.id, session.personId);
    if (!member) throw new NotFound("database_not_found", `No database "${dbId}" in this vault`);
    const role = member.role;
    const forms = (await vault.forms.list(gate)).filter((f) => f.databaseId === db.id);
    return c.html(
      html(
        <DatabasePage
          session={session}
          db={db}
          role={role}
          forms={forms}
          done={c.req.query("done")}
        />,
      ),
    );
  });

  /** The Members page of `dbId`, with what else it shows. */
  const membersPage = async (
    session: Session,
    dbId: string,
    extra: Omit<MembersPageProps, "session" | "db" | "members"> = {},
  ) => {
    const db = await members.ownedDatabase(session, dbId);
    const list = await members.list(session, dbId);
    return html(<MembersPage session={session} db={db} members={list} {...extra} />);
  };

  /** The page again with the refusal in plain words (a 409 or 400), or the error thrown on. */
  const refused = async (session: Session, dbId: string, err: unknown) => {
    if (!(err instanceof Conflict || err instanceof Invalid)) throw err;
    const status = err instanceof Conflict ? 409 : 400;
    return { page: await membersPage(session, dbId, { error: err.message }), status } as const;
  };

  app.get("/console/databases/:dbId/members", async (c) => {
    const dbId = idParam(c.req.param("dbId"), "database");
    return c.html(await membersPage(c.var.session, dbId, { done: c.req.query("done") }));
  });

  app.post("/console/databases/:dbId/members", async (c) => {
    const session = c.var.session;
    const dbId = idParam(c.req.param("dbId"), "database");
    const body = await formBody(c);
    try {
      const invited = await invitations.invite(
        session,
        dbId,
        field(body, "email"),
        roleOf(field(body, "role")),
        deps.baseUrl(),
      );
      return c.html(await membersPage(session, dbId, { invited }));
    } catch (err) {
      const { page, status } = await refused(session, dbId, err);
      return c.html(page, status);
    }
  });

  /**
   * A member's action (`role`, `remove`): `act` answers the notice of the Members page it
   * redirects to, or null to go to the front page; a refusal shows the page again.
   */
  const memberAction = (
    action: string,
    act: (
      session: Session,
      dbId: string,
      personId: string,
      body: FormFields,
    ) => Promise<string | null>,
  ) =>
    app.post(`/console/databases/:dbId/members/:personId/${action}`, async (c) => {
      const session = c.var.session;
      const dbId = idParam(c.req.param("dbId"), "database");
      const personId = idParam(c.req.param("personId"), "member");
      try {
        const done = await act(session, dbId, personId, await formBody(c));
        if (done === null) return c.redirect("/console", 303);
        const page = `/console/databases/${dbId}/members?done=${encodeURIComponent(done)}`;
        return c.redirect(page, 303);
      } catch (err) {
        const { page, status } = await refused(session, dbId, err);
        return c.html(page, status);
      }
    });

  memberAction("role", async (session, dbId, personId, body) => {
    const m = await members.setRole(session, dbId, personId, roleOf(field(body, "role")));
    return `${m.name || m.email} is now ${m.role}.`;
  });

  memberAction("remove", async (session, dbId, personId) => {
    const person = await vault.store.people.get(personId);
    await members.remove(session, dbId, personId);
    // Removing oneself ends one's own sessions too: back to the sign-in page.
    if (personId === session.personId) return null;
    return `${person?.name || person?.email || personId} was removed.`;
  });

  return app;
}
