/**
 * `deno task bench [name...]`: runs the benchmarks (all of them, or those named), each in
 * its own process, one after another so they do not compete for the two cores.
 */
const here = new URL(".", import.meta.url);
const known = [
  "intake",
  "disk",
  "upload",
  "crypto",
  "password",
  "ingest",
  "ingest_flat",
  "kv_flat",
  "webhooks",
  "ops",
  "formpage",
  "serving",
  "edge",
  "console",
  "files",
  "upload_s3",
  "vault_store",
  "relay_meta",
  "pg_envelopes",
  "pg_webhooks",
  "scale",
];
const present = known.filter((name) => {
  try {
    return Deno.statSync(new URL(`${name}.ts`, here)).isFile;
  } catch {
    return false;
  }
});
const chosen = Deno.args.length > 0 ? Deno.args : present;
for (const name of chosen) {
  if (!present.includes(name)) {
    console.error(`Unknown benchmark "${name}"; known: ${present.join(", ")}`);
    Deno.exit(2);
  }
}
let failed = 0;
for (const name of chosen) {
  console.log(`\n## ${name}\n`);
  const status = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(`${name}.ts`, here).pathname],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) failed++;
}
Deno.exit(failed === 0 ? 0 : 1);
