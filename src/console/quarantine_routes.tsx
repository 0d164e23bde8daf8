/**
 * Quarantine in the console: every envelope the vault could not save, with its reason (the
 * reason names the field path), and retry one or all after fixing the form.
 *
 * @module
 */
import { NEED } from "../people/access.ts";
import { Hono } from "hono";
import type { QuarantinedEnvelope } from "../store/ports/quarantine.ts";
import type { ConsoleDeps, ConsoleEnv } from "./context.ts";
import { ActionButton, ColumnHeads, html, Notice, Page } from "./layout.tsx";
import type { Session } from "./sessions.ts";

function QuarantinePage(
  { session, rows, done }: { session: Session; rows: QuarantinedEnvelope[]; done?: string },
) {
  return (
    <Page title="Quarantine" session={session}>
      <Notice text={done} />
      <p>
        Envelopes the vault could not turn into records are kept here. Fix the form (publish a
        version that accepts them), then retry.
      </p>
      {rows.length === 0 ? <p>Nothing is quarantined.</p> : (
        <>
          <ActionButton session={session} action="/console/quarantine/retry" label="Retry all" />
          <table>
            <ColumnHeads names={["Envelope", "Form", "Reason", "Received", "Actions"]} />
            <tbody>
              {rows.map((row) => (
                <tr>
                  <td>
                    <code>{row.id}</code>
                  </td>
                  <td>
                    <a href={`/console/forms/${encodeURIComponent(row.formId)}`}>{row.formId}</a>
                    {row.formVersion !== null ? ` v${row.formVersion}` : ""}
                  </td>
                  <td class="value">
                    <code>{row.code}</code> {row.reason}
                  </td>
                  <td>{row.receivedAt}</td>
                  <td>
                    <ActionButton
                      session={session}
                      action={`/console/quarantine/${encodeURIComponent(row.id)}/retry`}
                      label="Retry"
                    />
                    <ActionButton
                      session={session}
                      action={`/console/quarantine/${encodeURIComponent(row.id)}/discard`}
                      label="Discard"
                      danger
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </Page>
  );
}

/** Mounts the quarantine pages. */
export function quarantineRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault } = deps;

  app.get("/console/quarantine", async (c) => {
    const rows = await vault.listQuarantine(vault.access.gate(c.var.session, NEED.quarantine));
    return c.html(
      html(<QuarantinePage session={c.var.session} rows={rows} done={c.req.query("done")} />),
    );
  });

  const retried = (results: { outcome: string }[]) => {
    const saved = results.filter((r) => r.outcome !== "quarantined").length;
    const text = `Retried ${results.length}: ${saved} saved, ${results.length - saved} still ` +
      "quarantined.";
    return `/console/quarantine?done=${encodeURIComponent(text)}`;
  };

  app.post("/console/quarantine/retry", async (c) => {
    return c.redirect(
      retried(await vault.retryQuarantine(vault.access.gate(c.var.session, NEED.records))),
      303,
    );
  });

  app.post("/console/quarantine/:id/retry", async (c) => {
    const results = await vault.retryQuarantine(
      vault.access.gate(c.var.session, NEED.records),
      c.req.param("id"),
    );
    return c.redirect(retried(results), 303);
  });

  app.post("/console/quarantine/:id/discard", async (c) => {
    await vault.discardQuarantine(
      vault.access.gate(c.var.session, NEED.records),
      c.req.param("id"),
    );
    return c.redirect(`/console/quarantine?done=${encodeURIComponent("Envelope discarded.")}`, 303);
  });

  return app;
}
