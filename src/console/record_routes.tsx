/**
 * Records in the console: the table, a record with its versions, delete, and the streamed
 * CSV and JSONL exports.
 *
 * @module
 */
import { actionBy } from "../audit/sink.ts";
import { NEED } from "../people/access.ts";
import { Hono } from "hono";
import { Invalid } from "../errors/index.ts";
import type { RecordsPort } from "../store/ports/records.ts";
import type { VaultRecord } from "../vault/index.ts";
import type { ConsoleDeps, ConsoleEnv } from "./context.ts";
import { exportStream } from "./export.ts";
import { html } from "./layout.tsx";
import {
  PAGE_SIZE,
  parseQuery,
  perDay,
  type RecordQuery,
  selectRecords,
  usesIndex,
} from "./record_query.ts";
import { DeletePage, RecordPage, RecordsPage } from "./records_page.tsx";
import { fileUrls } from "./values.tsx";

/** Days the chart shows. */
const CHART_DAYS = 30;

/** A page of the table. */
interface TablePage {
  records: VaultRecord[];
  total: number;
  /** The next page's cursor (time-index views), else null. */
  nextCursor: string | null;
}

/** Newest (or oldest) first, maybe between dates: a page read from the time index. */
async function indexedPage(
  records: RecordsPort,
  formId: string,
  query: RecordQuery,
): Promise<TablePage> {
  const { ids, nextCursor } = await records.idsByTime(formId, {
    from: query.from,
    to: query.to,
    oldest: query.sort === "oldest",
    cursor: query.cursor || undefined,
    limit: PAGE_SIZE,
  }).catch(() => {
    throw new Invalid("invalid_request", "Invalid page cursor", "cursor");
  });
  const page = await records.getMany(formId, ids);
  const total = query.from || query.to
    ? [...(await records.perDay(formId, query.from || "0000-01-01", query.to || "9999-12-31"))
      .values()].reduce((a, b) => a + b, 0)
    : await records.count(formId);
  return { records: page, total, nextCursor };
}

/** Search or "recently updated": every head read, filtered and sorted, one page shown. */
async function scannedPage(
  records: RecordsPort,
  formId: string,
  query: RecordQuery,
): Promise<TablePage> {
  const selected = await selectRecords(records.scan(formId), query);
  const start = (query.page - 1) * PAGE_SIZE;
  const ids = selected.slice(start, start + PAGE_SIZE).map((k) => k.recordId);
  return {
    records: await records.getMany(formId, ids),
    total: selected.length,
    nextCursor: null,
  };
}

/** Mounts the record pages. */
export function recordRoutes(deps: ConsoleDeps): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const { vault } = deps;
  const records = vault.store.records;

  app.get("/console/forms/:formId/records", async (c) => {
    const form = await vault.forms.get(
      vault.access.gate(c.var.session, NEED.read),
      c.req.param("formId"),
    );
    const query = parseQuery(c.req.query());
    const page = usesIndex(query)
      ? await indexedPage(records, form.formId, query)
      : await scannedPage(records, form.formId, query);
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.parse(today) - (CHART_DAYS - 1) * 86_400_000);
    const counts = await records.perDay(form.formId, from.toISOString().slice(0, 10), today);
    const urls = await fileUrls(vault, form.formId, form.fields, page.records.map((r) => r.values));
    return c.html(html(
      <RecordsPage
        session={c.var.session}
        form={form}
        query={query}
        records={page.records}
        total={page.total}
        nextCursor={page.nextCursor}
        days={perDay(counts, CHART_DAYS, today)}
        urls={urls}
        done={c.req.query("done")}
      />,
    ));
  });

  app.get("/console/forms/:formId/records/:recordId", async (c) => {
    const form = await vault.forms.get(
      vault.access.gate(c.var.session, NEED.read),
      c.req.param("formId"),
    );
    const record = await vault.record(form.formId, c.req.param("recordId"));
    vault.audit.record(actionBy(c.var.session, "record_viewed", {
      databaseId: form.databaseId,
      target: { kind: "record", id: `${form.formId}/${record._recordId}` },
    }));
    const versions = await records.versions(form.formId, record._recordId, 200);
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

  app.get("/console/forms/:formId/records/:recordId/delete", async (c) => {
    const form = await vault.forms.get(
      vault.access.gate(c.var.session, NEED.records),
      c.req.param("formId"),
    );
    const record = await vault.record(form.formId, c.req.param("recordId"));
    return c.html(html(
      <DeletePage session={c.var.session} form={form} recordId={record._recordId} />,
    ));
  });

  app.post("/console/forms/:formId/records/:recordId/delete", async (c) => {
    const form = await vault.forms.get(
      vault.access.gate(c.var.session, NEED.records),
      c.req.param("formId"),
    );
    await vault.deleteRecord(
      vault.access.gate(c.var.session, NEED.records),
      form.formId,
      c.req.param("recordId"),
    );
    const done = encodeURIComponent("Record deleted.");
    return c.redirect(
      `/console/forms/${encodeURIComponent(form.formId)}/records?done=${done}`,
      303,
    );
  });

  for (const format of ["csv", "jsonl"] as const) {
    app.get(`/console/forms/:formId/export.${format}`, async (c) => {
      const form = await vault.forms.get(
        vault.access.gate(c.var.session, NEED.read),
        c.req.param("formId"),
      );
      vault.audit.record(actionBy(c.var.session, "records_exported", {
        databaseId: form.databaseId,
        target: { kind: "form", id: form.formId },
        detail: { format },
      }));
      const type = format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson";
      return new Response(exportStream(records, form.formId, form.fields, format), {
        headers: {
          "content-type": type,
          "content-disposition": `attachment; filename="${form.formId}.${format}"`,
        },
      });
    });
  }

  return app;
}
