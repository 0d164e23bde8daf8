/**
 * The "Members" page of a database: its members with their roles (a role can be changed, a
 * member removed), and the invitation form (an email and a role); a new invitation's link is
 * shown once, above the list.
 *
 * @module
 */
import type { Invitation } from "../people/invitations.ts";
import type { MemberView } from "../people/members.ts";
import type { Role } from "../store/ports/memberships.ts";
import type { VaultDatabase } from "../store/ports/vault_databases.ts";
import { ActionButton, ColumnHeads, Csrf, ErrorBox, Notice, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";

/** The roles, highest first, with what each may do (as src/people/access.ts's NEED says). */
export const ROLES: { role: Role; text: string }[] = [
  { role: "owner", text: "members, keys, deleting forms, and everything an editor may" },
  { role: "editor", text: "forms, versions, webhooks, quarantine, records" },
  { role: "viewer", text: "records and files, read only" },
];

/** The tabs of a database's pages. */
export function DatabaseTabs(
  { db, current, owner }: { db: VaultDatabase; current: string; owner: boolean },
) {
  const base = `/console/databases/${encodeURIComponent(db.id)}`;
  const tabs: [string, string][] = [["Overview", base]];
  if (owner) tabs.push(["Members", `${base}/members`]);
  return (
    <nav class="tabs" aria-label="Database">
      {tabs.map(([label, href]) => (
        <a href={href} aria-current={label === current ? "page" : undefined}>{label}</a>
      ))}
    </nav>
  );
}

function RoleSelect({ id, value, label }: { id: string; value?: Role; label?: string }) {
  return (
    <select id={id} name="role" aria-label={label}>
      {ROLES.map(({ role }) => <option value={role} selected={role === value}>{role}</option>)}
    </select>
  );
}

/** Props of {@link MembersPage}. */
export interface MembersPageProps {
  session: Session;
  db: VaultDatabase;
  members: MemberView[];
  done?: string;
  error?: string | null;
  /** An invitation just made: its link is shown this once. */
  invited?: Invitation;
}

/** The Members page. */
export function MembersPage({ session, db, members, done, error, invited }: MembersPageProps) {
  const base = `/console/databases/${encodeURIComponent(db.id)}/members`;
  return (
    <Page title={`Members of “${db.name}”`} session={session}>
      <DatabaseTabs db={db} current="Members" owner />
      <Notice text={done} />
      <ErrorBox text={error} />
      {invited && (
        <section class="notice" aria-labelledby="invited">
          <h2 id="invited">Invitation for {invited.email} ({invited.role})</h2>
          <p>
            Send this link to {invited.email}. It is shown only now, works once, and expires on{" "}
            {new Date(invited.expiresAt).toISOString().slice(0, 10)}.
            {invited.mailed ? "" : " It was not mailed."}
          </p>
          <p class="secret" id="invitation-link">{invited.link}</p>
        </section>
      )}
      <table>
        <caption class="muted">People who may use this database</caption>
        <ColumnHeads names={["Name", "Email", "Role", "Member since", "Remove"]} />
        <tbody>
          {members.map((m) => {
            const who = m.name || m.email;
            const path = `${base}/${encodeURIComponent(m.personId)}`;
            return (
              <tr>
                <td>{m.name || <span class="muted">no name yet</span>}</td>
                <td>{m.email}</td>
                <td>
                  <form method="post" action={`${path}/role`} class="inline">
                    <Csrf session={session} />
                    <RoleSelect id={`role-${m.personId}`} value={m.role} label={`Role of ${who}`} />
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={`Change role of ${who}`}
                    >
                      Change role
                    </button>
                  </form>
                </td>
                <td>{m.since.slice(0, 10)}</td>
                <td>
                  <ActionButton
                    session={session}
                    action={`${path}/remove`}
                    label="Remove"
                    danger
                    ariaLabel={`Remove ${who}`}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p class="muted">
        Removing a member ends their console sessions at once; when this was their last database,
        their API tokens are revoked too.
      </p>
      <h2 id="invite">Invite someone</h2>
      <form method="post" action={base} aria-labelledby="invite">
        <Csrf session={session} />
        <label for="email">Email</label>
        <input id="email" name="email" type="email" required autocomplete="off" />
        <label for="role">Role</label>
        <RoleSelect id="role" value="editor" />
        <button type="submit">Invite</button>
      </form>
      <dl class="muted">
        {ROLES.map(({ role, text }) => (
          <>
            <dt>{role}</dt>
            <dd>{text}</dd>
          </>
        ))}
      </dl>
    </Page>
  );
}
