/**
 * Records in the console: the table, a record with its versions, delete, and the streamed
 * CSV and JSONL exports.
 *
 * @module
 */
import { Hono } from "hono";
import { getLargeValue } from "../store/large_value.ts";
import { vaultKeys, type VaultRecordRow } from "../store/keys.ts";
import { deleteRecord, getRecord, recordOf, recordVersions } from "../vault/records.ts";
import type { ConsoleDeps, ConsoleEnv } from "./context.ts";
import { exportStream } from "./export.ts";
import { html } from "./layout.tsx";
import { PAGE_SIZE, parseQuery, perDay, recordHeads, selectRecords } from "./record_query.ts";
import { RecordPage, RecordsPage } from "./records_page.tsx";
import { fileUrls } from "./values.tsx";

/** Days the chart shows. */
const CHART_DAYS = 30;

/** Mounts the record pages. */
export function recordRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { kv, vault } = deps;

  app.get("/console/forms/:formId/records", async (c) => {
    const form = await vault.forms.get(c.var.session.userId, c.req.param("formId"));
    const query = parseQuery(c.req.query());
    const heads = await recordHeads(kv, form.formId);
    const valuesOf = async (head: VaultRecordRow) =>
      await getLargeValue<Record<string, unknown>>(
        kv,
        vaultKeys.recordValues(head.formId, head.recordId),
      ) ?? {};
    const selected = await selectRecords(heads, query, valuesOf);
    const start = (query.page - 1) * PAGE_SIZE;
    const records = await Promise.all(
      selected.slice(start, start + PAGE_SIZE).map((head) => recordOf(kv, head)),
    );
    const today = new Date().toISOString().slice(0, 10);
    const urls = await fileUrls(vault, form.formId, form.fields, records.map((r) => r.values));
    return c.html(html(
      <RecordsPage
        session={c.var.session}
        form={form}
        query={query}
        records={records}
        total={selected.length}
        days={perDay(heads, CHART_DAYS, today)}
        urls={urls}
        done={c.req.query("done")}
      />,
    ));
  });

  app.get("/console/forms/:formId/records/:recordId", async (c) => {
    const form = await vault.forms.get(c.var.session.userId, c.req.param("formId"));
    const record = await getRecord(kv, form.formId, c.req.param("recordId"));
    const versions = await recordVersions(kv, form.formId, record._recordId);
    const urls = await fileUrls(vault, form.formId, form.fields, [record.values]);
    return c.html(html(
      <RecordPage
        session={c.var.session}
        form={form}
        record={record}
        versions={versions}
        urls={urls}
      />,
    ));
  });

  app.post("/console/forms/:formId/records/:recordId/delete", async (c) => {
    const form = await vault.forms.get(c.var.session.userId, c.req.param("formId"));
    await deleteRecord(kv, form.formId, c.req.param("recordId"));
    const done = encodeURIComponent("Record deleted.");
    return c.redirect(
      `/console/forms/${encodeURIComponent(form.formId)}/records?done=${done}`,
      303,
    );
  });

  for (const format of ["csv", "jsonl"] as const) {
    app.get(`/console/forms/:formId/export.${format}`, async (c) => {
      const form = await vault.forms.get(c.var.session.userId, c.req.param("formId"));
      const type = format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson";
      return new Response(exportStream(kv, form.formId, form.fields, format), {
        headers: {
          "content-type": type,
          "content-disposition": `attachment; filename="${form.formId}.${format}"`,
        },
      });
    });
  }

  return app;
}
