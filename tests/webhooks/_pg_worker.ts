/**
 * A vault worker's webhook engine on PostgreSQL in a child process, for kill -9 tests.
 * Arguments: one JSON object `{ url, schema, settings, options }`. Prints "ready" once the
 * engine runs; exits after 120 s at most.
 */
import { openPg } from "../../src/store/pg/db.ts";
import { startPgWorker } from "./_pg_harness.ts";

const { url, schema, settings, options } = JSON.parse(Deno.args[0]);
const sql = openPg(url, { schema, max: 4 });
await startPgWorker(sql, settings, options);
console.log("ready");
setTimeout(() => Deno.exit(0), 120_000);
