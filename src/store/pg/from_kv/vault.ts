/**
 * Copies the vault's data from a Deno KV store (the layout of src/store/kv/keys.ts) into
 * PostgreSQL, for `sealpost migrate-store`: databases and facts, forms and their versions,
 * records (tombstones too) with their saved versions, pending file releases, quarantined
 * envelopes with their sealed boxes, console sessions, the record events not yet consumed,
 * people with their memberships, tokens and unexpired tickets, and sign-in factors (passkeys,
 * TOTP, recovery codes). Counts (records, a database's owners), days and the by-time index are
 * queries on PostgreSQL: nothing to copy.
 *
 * @module
 */
import type { Membership } from "../../ports/memberships.ts";
import type { Person } from "../../ports/people.ts";
import type { PersonToken } from "../../ports/person_tokens.ts";
import type { RecordEvent } from "../../ports/record_events.ts";
import type { Ticket } from "../../ports/tickets.ts";
import { toBase64 } from "../../../crypto/encoding.ts";
import { keys, vaultKeys } from "../../kv/keys.ts";
import { parseJsonParts, readJsonParts, readParts } from "../../kv/parts.ts";
import type { ConsoleSession } from "../../ports/sessions.ts";
import type { Passkey, TotpFactor } from "../../ports/sign_in_factors.ts";
import type { VaultFileReleaseRow } from "../../kv/file_releases.ts";
import type { VaultRecordRow } from "../../kv/record_writes.ts";
import type { QuarantinedEnvelope } from "../../ports/quarantine.ts";
import type { RecordVersion } from "../../ports/records.ts";
import type { Sql } from "../db.ts";

/** Rows per multi-row insert at most. */
const BATCH_ROWS = 500;

/** JSON bytes per multi-row insert at most (a batch of large records or boxes ends early). */
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * The longest a console session can live (`console.session_max_seconds` allows 90 days): a
 * session's row is kept that long after its creation; the console checks its own limits.
 */
const SESSION_MAX_MS = 90 * 24 * 3600 * 1000;

/** Inserts rows given as one JSON array; answers how many were new. */
type Insert = (sql: Sql, rows: string) => Promise<number>;

/**
 * Inserts the rows `source` yields through `insert`, in batches; answers how many were new.
 */
async function copy(sql: Sql, source: AsyncIterable<object>, insert: Insert): Promise<number> {
  let copied = 0;
  let batch: string[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    copied += await insert(sql, `[${batch.join(",")}]`);
    batch = [];
    bytes = 0;
  };
  for await (const row of source) {
    const json = JSON.stringify(row);
    batch.push(json);
    bytes += json.length;
    if (batch.length >= BATCH_ROWS || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  return copied;
}

/** The values of `prefix`'s entries, mapped by `row` (null: left out). */
async function* rows<T>(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  row: (value: T, key: Deno.KvKey) => object | null | Promise<object | null>,
): AsyncIterable<object> {
  for await (const entry of kv.list<T>({ prefix }, { batchSize: 500 })) {
    const out = await row(entry.value, entry.key);
    if (out) yield out;
  }
}

/** The record events of the outbox, each joined from its parts (listed in key order). */
async function* outboxEvents(kv: Deno.Kv): AsyncIterable<object> {
  let id: string | null = null;
  let parts: Uint8Array[] = [];
  const event = () => ({ event_id: id, event: parseJsonParts<RecordEvent>(parts) });
  for await (const entry of kv.list<Uint8Array>({ prefix: keys.recordEventsAll() })) {
    const eventId = String(entry.key[1]);
    if (id !== null && eventId !== id) yield event();
    if (eventId !== id) parts = [];
    id = eventId;
    parts.push(entry.value);
  }
  if (id !== null) yield event();
}

const count = (done: { n: number }[]) => done.length;

/**
 * The insert of rows, JSON objects named by column, into `table`: `columns` maps each column
 * to its SQL type (the statement reads the JSON array as a record set of those).
 */
function columns(table: string, types: Record<string, string>): Insert {
  const names = Object.keys(types).join(", ");
  const typed = Object.entries(types).map(([name, type]) => `${name} ${type}`).join(", ");
  const statement = `insert into ${table} (${names})
    select * from json_to_recordset($1::text::json) as x(${typed})
    on conflict do nothing returning 1 as n`;
  return async (q, json) => count(await q.unsafe(statement, [json]));
}

/** The insert of rows `{ key, data }` into a table of a text key and a JSON column. */
function keyed(table: string, keyColumn: string, dataColumn: string): Insert {
  return async (q, json) =>
    count(
      await q`insert into ${q(table)} (${q(keyColumn)}, ${q(dataColumn)})
        select key, data from json_to_recordset(${json}::text::json) as x(key text, data json)
        on conflict do nothing returning 1 as n`,
    );
}

/**
 * Copies every vault row of `kv` into the database of `sql` (migrated already), idempotently:
 * rows present are kept (`on conflict do nothing`), so a copy cut short is simply run again.
 * `dataDir` is not read: the vault's private keys stay files of each vault's data dir, and
 * everything else lies in the KV store. Answers the rows newly copied per aggregate (zeros
 * when run again).
 *
 * @example
 * ```ts
 * const copied = await copyVaultFromKv(kv, "./data", sql);
 * console.log(copied.records, copied.quarantine);
 * ```
 */
export async function copyVaultFromKv(
  kv: Deno.Kv,
  _dataDir: string,
  sql: Sql,
): Promise<Record<string, number>> {
  // Prefixes without a builder of their own are spelled as in src/store/kv/keys.ts.
  const copied: Record<string, number> = {};
  copied.databases = await copy(
    sql,
    rows<{ id: string }>(kv, vaultKeys.databases(), (row) => ({ key: row.id, data: row })),
    keyed("vault_databases", "id", "data"),
  );
  copied.facts = await copy(
    sql,
    rows(kv, ["vault", "meta"], (value, key) => ({ key: key.at(-1), data: value })),
    keyed("vault_facts", "name", "value"),
  );
  copied.forms = await copy(
    sql,
    rows<{ formId: string }>(kv, vaultKeys.forms(), (row) => ({ key: row.formId, data: row })),
    keyed("vault_forms", "form_id", "data"),
  );
  copied.formVersions = await copy(
    sql,
    rows<{ formId: string; schemaVersion: number }>(
      kv,
      ["vault", "form_versions"],
      (row) => ({ form_id: row.formId, schema_version: row.schemaVersion, data: row }),
    ),
    async (q, json) =>
      count(
        await q`insert into vault_form_versions (form_id, schema_version, data)
          select form_id, schema_version, data from json_to_recordset(${json}::text::json)
            as x(form_id text, schema_version integer, data json)
          on conflict do nothing returning 1 as n`,
      ),
  );
  copied.records = await copy(sql, rows(kv, ["vault", "records"], recordRow(kv)), insertRecords);
  copied.recordVersions = await copy(
    sql,
    rows<RecordVersion>(kv, ["vault", "record_versions"], (v, key) => ({
      form_id: key[2],
      record_id: key[3],
      saved_at: v.savedAt,
      reason: v.reason,
      schema_version: v.schemaVersion,
      submission_version: v.submissionVersion,
      values: v.values,
    })),
    async (q, json) =>
      count(
        await q`insert into vault_record_versions (form_id, record_id, saved_at, reason,
            schema_version, submission_version, "values")
          select * from json_to_recordset(${json}::text::json) as x(form_id text,
            record_id text, saved_at text, reason text, schema_version integer,
            submission_version integer, "values" json)
          on conflict do nothing returning 1 as n`,
      ),
  );
  copied.fileReleases = await copy(
    sql,
    rows<VaultFileReleaseRow>(kv, vaultKeys.fileReleasesAll(), (r, key) => ({
      id: key.at(-1),
      form_id: r.formId,
      record_id: r.recordId,
      hashes: r.hashes,
    })),
    async (q, json) =>
      count(
        await q`insert into vault_file_releases (id, form_id, record_id, hashes)
          select * from json_to_recordset(${json}::text::json)
            as x(id text, form_id text, record_id text, hashes jsonb)
          on conflict do nothing returning 1 as n`,
      ),
  );
  copied.quarantine = await copy(
    sql,
    rows(kv, vaultKeys.quarantineAll(), quarantineRow(kv)),
    async (q, json) =>
      count(
        await q`insert into vault_quarantine (id, data, quarantined_at, box_bytes, box)
          select id, data, quarantined_at, box_bytes, decode(box, 'base64')
          from json_to_recordset(${json}::text::json) as x(id text, data jsonb,
            quarantined_at text, box_bytes integer, box text)
          on conflict do nothing returning 1 as n`,
      ),
  );
  const now = Date.now();
  copied.sessions = await copy(
    sql,
    rows<ConsoleSession>(
      kv,
      ["console", "sessions"],
      (row, key) =>
        row.createdAt + SESSION_MAX_MS < now ? null : {
          id_hash: key.at(-1),
          user_id: row.personId,
          data: row,
          seen_at: row.seenAt,
          expires_at: new Date(row.createdAt + SESSION_MAX_MS).toISOString(),
        },
    ),
    columns("vault_console_sessions", {
      id_hash: "text",
      user_id: "text",
      data: "jsonb",
      seen_at: "bigint",
      expires_at: "timestamptz",
    }),
  );
  copied.passkeys = await copy(
    sql,
    rows<Passkey>(kv, ["sign_in", "passkeys"], (p) => ({
      credential_id: p.credentialId,
      person_id: p.personId,
      counter: p.counter,
      last_used_at: p.lastUsedAt,
      data: p,
    })),
    columns("vault_passkeys", {
      credential_id: "text",
      person_id: "text",
      counter: "bigint",
      last_used_at: "text",
      data: "jsonb",
    }),
  );
  copied.totpFactors = await copy(
    sql,
    rows<TotpFactor>(kv, ["sign_in", "totp"], (f, key) => ({
      person_id: key.at(-1),
      secret: f.secret,
      last_step: f.lastStep,
      created_at: f.createdAt,
    })),
    columns("vault_totp_factors", {
      person_id: "text",
      secret: "text",
      last_step: "bigint",
      created_at: "text",
    }),
  );
  copied.recoveryCodes = await copy(
    sql,
    rows(kv, ["sign_in", "recovery_codes"], (_, key) => ({
      person_id: key.at(-2),
      code_hash: key.at(-1),
    })),
    columns("vault_recovery_codes", { person_id: "text", code_hash: "text" }),
  );
  copied.recordEvents = await copy(sql, outboxEvents(kv), async (q, json) =>
    count(
      await q`insert into vault_record_events (event_id, event)
        select * from json_to_recordset(${json}::text::json) as x(event_id text, event json)
        on conflict do nothing returning 1 as n`,
    ));
  Object.assign(copied, await copyPeople(kv, sql));
  return copied;
}

/** Copies people, memberships (as the databases list them), tokens and unexpired tickets. */
async function copyPeople(kv: Deno.Kv, sql: Sql): Promise<Record<string, number>> {
  const people = await copy(
    sql,
    rows<Person>(kv, ["people", "persons"], (p) => ({
      id: p.id,
      email: p.email,
      name: p.name,
      password_hash: p.passwordHash,
      instance_admin: p.instanceAdmin,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    })),
    async (q, json) =>
      count(
        await q`insert into people (id, email, name, password_hash, instance_admin, created_at,
            updated_at)
          select * from json_to_recordset(${json}::text::json) as x(id text, email text,
            name text, password_hash text, instance_admin boolean, created_at timestamptz,
            updated_at timestamptz)
          on conflict do nothing returning 1 as n`,
      ),
  );
  const memberships = await copy(
    sql,
    rows<Membership>(kv, ["people", "members"], (m) => ({
      database_id: m.databaseId,
      person_id: m.personId,
      role: m.role,
      since: m.since,
    })),
    async (q, json) =>
      count(
        await q`insert into memberships (database_id, person_id, role, since)
          select * from json_to_recordset(${json}::text::json) as x(database_id text,
            person_id text, role text, since timestamptz)
          on conflict do nothing returning 1 as n`,
      ),
  );
  const personTokens = await copy(
    sql,
    rows<PersonToken>(kv, ["people", "tokens"], (t) => ({
      id: t.id,
      person_id: t.personId,
      name: t.name,
      scopes: t.scopes,
      secret_hash: t.secretHash,
      created_at: t.createdAt,
      expires_at: t.expiresAt,
      last_used_at: t.lastUsedAt,
    })),
    async (q, json) =>
      count(
        await q`insert into person_tokens (id, person_id, name, scopes, secret_hash,
            created_at, expires_at, last_used_at)
          select * from json_to_recordset(${json}::text::json) as x(id text, person_id text,
            name text, scopes jsonb, secret_hash text, created_at timestamptz,
            expires_at timestamptz, last_used_at timestamptz)
          on conflict do nothing returning 1 as n`,
      ),
  );
  const now = Date.now();
  const tickets = await copy(
    sql,
    rows<Ticket>(kv, ["people", "tickets"], (t, key) =>
      t.expiresAt < now ? null : {
        id_hash: key.at(-1),
        kind: t.kind,
        person_id: t.personId,
        data: t.data,
        expires_at_ms: t.expiresAt,
      }),
    async (q, json) =>
      count(
        await q`insert into tickets (id_hash, kind, person_id, data, expires_at_ms)
          select * from json_to_recordset(${json}::text::json) as x(id_hash text, kind text,
            person_id text, data jsonb, expires_at_ms bigint)
          on conflict do nothing returning 1 as n`,
      ),
  );
  return { people, memberships, personTokens, tickets };
}

/** A record head (live, or a tombstone) as a row of `vault_records`, its values joined. */
function recordRow(kv: Deno.Kv) {
  return async (row: VaultRecordRow) => {
    const values = row.deletedAt ? null : row.values ??
      await readJsonParts<Record<string, unknown>>(
        kv,
        vaultKeys.recordValues(row.formId, row.recordId),
      ) ?? {};
    return {
      form_id: row.formId,
      record_id: row.recordId,
      schema_version: row.schemaVersion,
      saved_at: row.savedAt,
      created_at: row.createdAt,
      submission_id: row.submissionId,
      applied_version: row.appliedVersion,
      values,
      value_bytes: values ? new TextEncoder().encode(JSON.stringify(values)).length : 0,
      files: row.files ?? [],
      deleted_at: row.deletedAt ?? null,
    };
  };
}

async function insertRecords(q: Sql, json: string): Promise<number> {
  return count(
    await q`insert into vault_records (form_id, record_id, schema_version, saved_at,
        created_at, submission_id, applied_version, "values", value_bytes, files, deleted_at)
      select * from json_to_recordset(${json}::text::json) as x(form_id text, record_id text,
        schema_version integer, saved_at text, created_at text, submission_id text,
        applied_version integer, "values" json, value_bytes integer, files jsonb,
        deleted_at text)
      on conflict do nothing returning 1 as n`,
  );
}

/** A quarantine row with its sealed box (base64), or null when the box is not there. */
function quarantineRow(kv: Deno.Kv) {
  return async (row: QuarantinedEnvelope) => {
    const box = await readParts(kv, vaultKeys.quarantineDataOf(row.id));
    if (!box) return null;
    const { quarantinedAt, parts: _parts, ...data } = row;
    return {
      id: row.id,
      data,
      quarantined_at: quarantinedAt,
      box_bytes: box.length,
      box: toBase64(box),
    };
  };
}
