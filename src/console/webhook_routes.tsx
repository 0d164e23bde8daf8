/**
 * Webhooks in the console: add and edit (with a body preview), a test send, deliveries with
 * their attempts, retry one or all failed, remove. Uses the webhook engine in-process.
 *
 * @module
 */
import { actionBy } from "../audit/sink.ts";
import { NEED } from "../people/access.ts";
import { type Context, Hono } from "hono";
import { httpError } from "../http/errors.ts";
import { NotFound } from "../errors/index.ts";
import type { WebhookConfig } from "../store/ports/webhooks.ts";
import type { VaultForm } from "../vault/index.ts";
import { createConfig, type TestSendResult, updateConfig } from "../webhooks/index.ts";
import { type ConsoleDeps, type ConsoleEnv, formBody } from "./context.ts";
import { ActionButton, FormTabs, html, Notice, Page } from "./layout.tsx";
import { createFromForm, patchFromForm, previewBody, previewFromForm } from "./webhook_form.ts";
import {
  Attempts,
  Deliveries,
  FlagBox,
  SecretOnce,
  TestResult,
  WebhookEditor,
} from "./webhook_pages.tsx";

type C = Context<ConsoleEnv>;

/** Where the console island posts a webhook editor for a live body preview. */
const previewUrl = (formId: string) =>
  `/console/forms/${encodeURIComponent(formId)}/webhooks/preview`;

/** Rethrows a 404 (of the form) as `notFound()` (of the webhook or delivery); other errors as they are. */
function notFoundAs(notFound: () => NotFound): (err: unknown) => never {
  return (err) => {
    throw err instanceof NotFound ? notFound() : err;
  };
}

/** Mounts the webhook pages. */
export function webhookRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault, webhooks: engine } = deps;
  const { webhooks: store, deliveries } = engine;

  /** Reports a configuration change (and a generated secret shown once) to the audit log. */
  const report = (
    c: C,
    action: "webhook_created" | "webhook_updated" | "webhook_deleted",
    row: WebhookConfig,
    form: VaultForm,
    secret: string | null,
  ) => {
    const rest = { databaseId: form.databaseId, target: { kind: "webhook", id: row.id } };
    vault.audit.record(actionBy(c.var.session, action, rest));
    if (secret) vault.audit.record(actionBy(c.var.session, "webhook_secret_revealed", rest));
  };

  const ownWebhook = async (c: C): Promise<{ row: WebhookConfig; form: VaultForm }> => {
    const id = c.req.param("webhookId") ?? "";
    const row = /^[0-9a-f]{24}$/.test(id) ? await store.config(id) : null;
    if (!row) throw new NotFound("webhook_not_found", `Webhook "${id}" not found`);
    const form = await vault.forms.get(vault.access.gate(c.var.session, NEED.webhooks), row.formId)
      .catch(notFoundAs(() => new NotFound("webhook_not_found", `Webhook "${id}" not found`)));
    return { row, form };
  };

  const ownDelivery = async (c: C) => {
    const id = c.req.param("deliveryId") ?? "";
    const stored = /^[0-9a-f]{32}$/.test(id) ? await deliveries.delivery(id) : null;
    const row = stored && await store.config(stored.row.webhookId);
    const notFound = () => new NotFound("delivery_not_found", `Delivery "${id}" not found`);
    if (!stored || !row) throw notFound();
    await vault.forms.get(vault.access.gate(c.var.session, NEED.webhooks), row.formId)
      .catch(notFoundAs(notFound));
    return { stored, row };
  };

  /** A configuration's page: flag, editor, test send, deliveries. */
  const webhookPage = async (
    c: C,
    row: WebhookConfig,
    form: VaultForm,
    extra: {
      posted?: Record<string, string | string[]>;
      error?: string | null;
      preview?: { body: string; contentType: string } | null;
      secret?: string | null;
      test?: TestSendResult | null;
    } = {},
    status: 200 | 400 = 200,
  ) => {
    const session = c.var.session;
    const flag = await store.flag(row.id);
    const failedOnly = c.req.query("failed") === "1";
    const page = await deliveries.deliveries(row.id, { failed: failedOnly, limit: 50 });
    const base = `/console/webhooks/${row.id}`;
    return c.html(
      html(
        <Page title={`Webhook ${row.name || row.url}`} session={session}>
          <FormTabs formId={form.formId} current="Webhooks" />
          <Notice text={c.req.query("done")} />
          {flag && <FlagBox session={session} config={row} flag={flag} />}
          <SecretOnce secret={extra.secret ?? null} />
          <TestResult test={extra.test ?? null} />
          <h2>Test and retry</h2>
          <ActionButton session={session} action={`${base}/test`} label="Send a test" />
          <ActionButton
            session={session}
            action={`${base}/retry-failed`}
            label="Retry all failed"
          />
          <ActionButton session={session} action={`${base}/delete`} label="Remove webhook" danger />
          <h2>Deliveries</h2>
          <p>
            {failedOnly
              ? <a href={base}>Show all deliveries</a>
              : <a href={`${base}?failed=1`}>Show failed deliveries only</a>}
          </p>
          <Deliveries session={session} rows={page.items} />
          <h2>Settings</h2>
          <WebhookEditor
            session={session}
            previewUrl={previewUrl(form.formId)}
            action={base}
            row={row}
            posted={extra.posted}
            error={extra.error}
            preview={extra.preview}
          />
        </Page>,
      ),
      status,
    );
  };

  app.get("/console/forms/:formId/webhooks", async (c) => {
    const session = c.var.session;
    const form = await vault.forms.get(
      vault.access.gate(session, NEED.webhooks),
      c.req.param("formId"),
    );
    return c.html(html(await listPage(session, form)));
  });

  const listPage = async (
    session: ConsoleEnv["Variables"]["session"],
    form: VaultForm,
    extra: {
      posted?: Record<string, string | string[]>;
      error?: string | null;
      preview?: { body: string; contentType: string } | null;
    } = {},
  ) => {
    const rows = await store.configsOf(form.formId);
    const flags = await store.flags(rows.map((r) => r.id));
    const action = `/console/forms/${encodeURIComponent(form.formId)}/webhooks`;
    return (
      <Page title={`Webhooks of ${form.title}`} session={session}>
        <FormTabs formId={form.formId} current="Webhooks" />
        {rows.map((r) => {
          const flag = flags.get(r.id);
          return flag ? <FlagBox session={session} config={r} flag={flag} /> : null;
        })}
        {rows.length === 0 ? <p>No webhooks yet.</p> : (
          <ul>
            {rows.map((r) => (
              <li>
                <a href={`/console/webhooks/${r.id}`}>{r.name || r.url}</a>
                {` ${r.method} ${r.url} (${r.mode})${flags.has(r.id) ? " — failing" : ""}`}
              </li>
            ))}
          </ul>
        )}
        <h2>Add a webhook</h2>
        <WebhookEditor
          session={session}
          previewUrl={previewUrl(form.formId)}
          action={action}
          row={null}
          posted={extra.posted}
          error={extra.error}
          preview={extra.preview}
        />
      </Page>
    );
  };

  app.post("/console/forms/:formId/webhooks", async (c) => {
    const session = c.var.session;
    const form = await vault.forms.get(
      vault.access.gate(session, NEED.webhooks),
      c.req.param("formId"),
    );
    const body = await formBody(c);
    try {
      const { row, secret } = createFromForm(form.formId, body);
      if (body.action === "preview") {
        const preview = await previewBody(row, form.fields);
        return c.html(html(await listPage(session, form, { posted: body, preview })));
      }
      await createConfig(store, row);
      report(c, "webhook_created", row, form, secret);
      if (secret) return await webhookPage(c, row, form, { secret });
      return c.redirect(`/console/webhooks/${row.id}?done=Webhook%20added.`, 303);
    } catch (err) {
      if ((httpError(err)?.status ?? 400) !== 400) throw err;
      if (!(err instanceof Error)) throw err;
      return c.html(html(await listPage(session, form, { posted: body, error: err.message })), 400);
    }
  });

  app.post("/console/forms/:formId/webhooks/preview", async (c) => {
    const form = await vault.forms.get(
      vault.access.gate(c.var.session, NEED.webhooks),
      c.req.param("formId"),
    );
    try {
      return c.json(await previewFromForm(form.formId, await formBody(c), form.fields));
    } catch (err) {
      if (httpError(err)?.status === 400) return c.json({ error: (err as Error).message });
      throw err;
    }
  });

  app.get("/console/webhooks/:webhookId", async (c) => {
    const { row, form } = await ownWebhook(c);
    return await webhookPage(c, row, form);
  });

  app.post("/console/webhooks/:webhookId", async (c) => {
    const { row: before, form } = await ownWebhook(c);
    const body = await formBody(c);
    try {
      const { row, secret } = patchFromForm(before, body);
      if (body.action === "preview") {
        const preview = await previewBody(row, form.fields);
        return await webhookPage(c, before, form, { posted: body, preview });
      }
      await updateConfig(store, before, row);
      report(c, "webhook_updated", row, form, secret);
      if (secret) return await webhookPage(c, row, form, { secret });
      return c.redirect(`/console/webhooks/${row.id}?done=Webhook%20saved.`, 303);
    } catch (err) {
      if ((httpError(err)?.status ?? 400) !== 400) throw err;
      if (!(err instanceof Error)) throw err;
      return await webhookPage(c, before, form, { posted: body, error: err.message }, 400);
    }
  });

  app.post("/console/webhooks/:webhookId/test", async (c) => {
    const { row, form } = await ownWebhook(c);
    return await webhookPage(c, row, form, { test: await engine.testSend(row) });
  });

  app.post("/console/webhooks/:webhookId/retry-failed", async (c) => {
    const { row } = await ownWebhook(c);
    const count = await engine.retryFailed(row.id);
    const done = encodeURIComponent(
      `Retrying ${count} failed deliver${count === 1 ? "y" : "ies"}.`,
    );
    return c.redirect(`/console/webhooks/${row.id}?done=${done}`, 303);
  });

  app.post("/console/webhooks/:webhookId/delete", async (c) => {
    const { row, form } = await ownWebhook(c);
    await store.removeConfig(row);
    report(c, "webhook_deleted", row, form, null);
    return c.redirect(`/console/forms/${encodeURIComponent(form.formId)}/webhooks`, 303);
  });

  app.get("/console/deliveries/:deliveryId", async (c) => {
    const { stored, row } = await ownDelivery(c);
    const d = stored.row;
    const attempts = await deliveries.attempts(d.id);
    return c.html(html(
      <Page title={`Delivery ${d.id}`} session={c.var.session}>
        <p>
          <a href={`/console/webhooks/${row.id}`}>{`Back to webhook ${row.name || row.url}`}</a>
        </p>
        <p>
          {`${d.reason} of record ${d.recordId}: ${d.status}, ${d.attempts} attempt(s)`}
          {d.nextAttemptAt ? `, next attempt at ${d.nextAttemptAt}` : ""}
        </p>
        {d.status !== "skipped" && (
          <ActionButton
            session={c.var.session}
            action={`/console/deliveries/${d.id}/retry`}
            label="Retry"
          />
        )}
        <h2>Attempts</h2>
        <Attempts attempts={attempts} />
      </Page>,
    ));
  });

  app.post("/console/deliveries/:deliveryId/retry", async (c) => {
    const { stored, row } = await ownDelivery(c);
    await engine.retry(stored);
    return c.redirect(`/console/webhooks/${row.id}?done=Delivery%20retried.`, 303);
  });

  return app;
}
