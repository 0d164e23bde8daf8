/**
 * Boundaries of the source tree, read from its import lines: the domain throws HTTP-free
 * errors (src/errors) and only the HTTP layer knows statuses; authentication and
 * authorization live in src/auth, with owner principals that always carry their user; the
 * store's vocabulary (src/store/ports) stands apart from its backends (src/store/kv,
 * src/store/pg), which only the backend choice and the command line's store operations open;
 * every feature's HTTP API has one shape; owned infrastructure says when it can go.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname!, "..");
const SRC = join(ROOT, "src");

/** Every TypeScript module under src/, as a path relative to the repository root. */
async function sourceFiles(dir = SRC): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await sourceFiles(path));
    else if (/\.tsx?$/.test(entry.name)) out.push(relative(ROOT, path));
  }
  return out.sort();
}

/** The specifiers a module imports or re-exports, relative ones resolved against the root. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"/gms)]
    .map((match) => match[1]);
  return specifiers.map((s) => s.startsWith(".") ? relative(ROOT, resolve(dirname(file), s)) : s);
}

const files = await Promise.all(
  (await sourceFiles()).map(async (file) => {
    const text = await Deno.readTextFile(join(ROOT, file));
    return { file, text, imports: importsOf(join(ROOT, file), text) };
  }),
);

/** The feature folders whose modules are domain code, apart from their HTTP routes. */
const DOMAIN = ["relay", "vault", "blobs", "webhooks", "forms", "store", "console", "auth"];

/**
 * Modules of the HTTP layer inside feature folders: route modules (`routes.ts`,
 * `*_routes.ts(x)`) and the console's router (`console/index.ts`, which renders its errors
 * as pages).
 */
function isHttpLayer(file: string): boolean {
  return /(^|_)routes\.tsx?$/.test(file.split("/").at(-1)!) || /^src\/[^/]+\/api\//.test(file) ||
    file === "src/console/index.ts";
}

Deno.test("the import scan sees the imports it is about", () => {
  const app = files.find((f) => f.file === "src/app.ts")!;
  assert.ok(app.imports.includes("src/http/errors.ts"));
  assert.ok(app.imports.includes("@hono/zod-openapi"));
  // A multi-line import is read as well.
  const service = files.find((f) => f.file === "src/blobs/service.ts")!;
  assert.match(service.text, /^import \{\n/m);
  assert.ok(service.imports.includes("src/errors/index.ts"));
  assert.ok(files.length > 100, `${files.length} modules`);
});

Deno.test("no domain module imports src/http/errors.ts", () => {
  const domain = files.filter(({ file }) =>
    DOMAIN.some((dir) => file.startsWith(`src/${dir}/`)) && !isHttpLayer(file)
  );
  assert.ok(domain.length > 50, `${domain.length} domain modules`);
  const offenders = domain.filter(({ imports }) => imports.includes("src/http/errors.ts"));
  assert.deepEqual(offenders.map((f) => f.file), []);
});

Deno.test("ApiError (an HTTP status) is thrown by src/http and route modules only", () => {
  const offenders = files.filter(({ file, text }) =>
    /\bApiError\b/.test(text) && !file.startsWith("src/http/") && !isHttpLayer(file)
  );
  assert.deepEqual(offenders.map((f) => f.file), []);
});

Deno.test("src/errors and the rules of src/auth know nothing of HTTP", () => {
  const httpFree = files.filter(({ file }) =>
    file.startsWith("src/errors/") ||
    (file.startsWith("src/auth/") &&
      !["src/auth/middleware.ts", "src/auth/index.ts"].includes(file))
  );
  assert.ok(httpFree.length >= 7, httpFree.map((f) => f.file).join(", "));
  for (const { file, imports } of httpFree) {
    const http = imports.filter((i) => /^(hono|@hono\/)/.test(i) || i.startsWith("src/http/"));
    assert.deepEqual(http, [], file);
  }
});

Deno.test("owner principals carry their user: no userId! anywhere in src", () => {
  const offenders = files.filter(({ text }) => text.includes("userId!"));
  assert.deepEqual(offenders.map((f) => f.file), []);
});

Deno.test("token checks live in src/auth: no module outside it (or the store) reads token rows", () => {
  const readers = files.filter(({ text }) => /\.getToken\(/.test(text)).map((f) => f.file);
  assert.ok(readers.includes("src/auth/tokens.ts"), "the scan sees the token checks");
  const offenders = readers.filter((file) =>
    !file.startsWith("src/auth/") && !file.startsWith("src/store/")
  );
  assert.deepEqual(offenders, []);
});

/** The code of a module without its comments. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

/** The backends of the store: each folder a set of modules behind its `index.ts`. */
const BACKENDS = ["src/store/kv/", "src/store/pg/"];
const isBackend = (path: string) => BACKENDS.some((dir) => path.startsWith(dir));

Deno.test("Deno KV stays behind the store: no module outside src/store and the store operations opens or holds it", () => {
  // `sealpost backup` archives a Deno KV data dir and `migrate-store` reads one (src/ops).
  const allowed = (file: string) => file.startsWith("src/store/") || file.startsWith("src/ops/");
  const offenders = files.filter((f) =>
    !allowed(f.file) && /\bDeno\.(openKv\b|Kv[A-Za-z]*\b)/.test(code(f.text))
  ).map((f) => f.file);
  assert.deepEqual(offenders, []);
  // The scan sees what it is about: the store's own KV modules match.
  assert.ok(files.some((f) => f.file === "src/store/kv/open.ts" && /Deno\.Kv\b/.test(f.text)));
});

Deno.test("src/store/ports imports neither backend, nor anything outside the ports", () => {
  const ports = files.filter(({ file }) => file.startsWith("src/store/ports/"));
  assert.ok(ports.length >= 15, `${ports.length} port modules`);
  for (const { file, imports } of ports) {
    const local = imports.filter((i) => i.startsWith("src/") && !i.startsWith("src/store/ports/"));
    assert.deepEqual(local, [], file);
  }
});

Deno.test("src/store keeps only the backend choice and the data dir beside ports, kv and pg", () => {
  const top = files.filter(({ file }) => /^src\/store\/[^/]+$/.test(file)).map((f) => f.file);
  assert.deepEqual(top, ["src/store/data_dir.ts", "src/store/open.ts"]);
  const folders = new Set(
    files.map(({ file }) => file.split("/")).filter((p) => p[1] === "store" && p.length > 3)
      .map((p) => p[2]),
  );
  assert.deepEqual([...folders].sort(), ["kv", "pg", "ports"]);
});

Deno.test("only the backend choice and the command line's store operations import a backend, through its index.ts", () => {
  const outside = files.filter(({ file }) => !file.startsWith("src/store/"));
  const users = outside.filter(({ imports }) => imports.some(isBackend));
  for (const { file, imports } of users) {
    const internals = imports.filter((i) => isBackend(i) && !/\/index\.ts$/.test(i));
    assert.deepEqual(internals, [], `${file} imports a backend's internals`);
  }
  // The composition root opens the store through src/store/open.ts; the rest of the program
  // gets ports. Only the store commands (src/cli), their operations (src/ops) and the
  // doctor's checks (src/doctor) name a backend.
  const roots = ["src/cli/", "src/ops/", "src/doctor/"];
  const offenders = users.map((f) => f.file).filter((f) => !roots.some((r) => f.startsWith(r)));
  assert.deepEqual(offenders, []);
  assert.ok(users.length >= 3, users.map((f) => f.file).join(", "));
  const server = files.find((f) => f.file === "src/server.ts")!;
  assert.ok(server.imports.includes("src/store/open.ts"));
  // Inside the store: the ports know no backend, and the backends know each other only where
  // PostgreSQL copies a Deno KV store (pg/from_kv).
  const kvToPg = files.filter(({ file, imports }) =>
    file.startsWith("src/store/pg/") && !file.startsWith("src/store/pg/from_kv/") &&
    imports.some((i) => i.startsWith("src/store/kv/"))
  );
  const pgToKv = files.filter(({ file, imports }) =>
    file.startsWith("src/store/kv/") && imports.some((i) => i.startsWith("src/store/pg/"))
  );
  assert.deepEqual([...kvToPg, ...pgToKv].map((f) => f.file), []);
});

Deno.test("the store's backends import no feature: the domain types they keep are the ports'", () => {
  const features = ["relay", "vault", "blobs", "webhooks", "console", "auth", "forms", "init"];
  const offenders = files.filter(({ file }) => isBackend(file)).flatMap(({ file, imports }) =>
    imports.filter((i) => features.some((f) => i.startsWith(`src/${f}/`))).map((i) =>
      `${file} -> ${i}`
    )
  );
  assert.deepEqual(offenders, []);
});

Deno.test("domain types are the ports': no port exports a storage row, pages render only port types", () => {
  const rows = files.filter(({ file }) => file.startsWith("src/store/ports/")).flatMap((
    { file, text },
  ) =>
    [...text.matchAll(/^export (?:interface|type) (\w+Row)\b/gm)].map((m) => `${file}: ${m[1]}`)
  );
  assert.deepEqual(rows, []);
  const pages = files.filter(({ file }) =>
    file.startsWith("src/console/") || file.startsWith("src/web/")
  );
  const storage = pages.flatMap(({ file, imports }) =>
    imports.filter((i) => i.startsWith("src/store/") && !i.startsWith("src/store/ports/")).map((
      i,
    ) => `${file} -> ${i}`)
  );
  assert.deepEqual(storage, []);
});

Deno.test("the store's contract lives in ports/limits.ts, record events in ports/record_events.ts", () => {
  const declared = (name: string) =>
    files.filter(({ text }) => new RegExp(`^export class ${name}\\b`, "m").test(text)).map((f) =>
      f.file
    );
  assert.deepEqual(declared("WriteTooLargeError"), ["src/store/ports/limits.ts"]);
  assert.deepEqual(declared("SchemaVersionError"), ["src/store/ports/limits.ts"]);
  assert.deepEqual(declared("RecordEventAnnouncer"), ["src/store/ports/record_events.ts"]);
  // No module-level registry of listeners keyed by store handle (each store owns its own).
  const registries = files.filter(({ file, text }) =>
    file.startsWith("src/store/") && /^(const|let) \w+ = new (WeakMap|Map)\b/m.test(code(text))
  );
  assert.deepEqual(registries.map((f) => f.file), []);
  // The record rules both backends apply are the records port's, not the vault's.
  const rules = files.filter(({ text }) =>
    /^export function (nextSavedAt|checkRecordSize)\b/m.test(text)
  );
  assert.deepEqual(rules.map((f) => f.file), ["src/store/ports/records.ts"]);
});

Deno.test("every feature's HTTP API has one shape: <feature>/api/<resource>.ts holds its routes", () => {
  const routes = files.filter(({ text }) => /\bcreateRoute\(/.test(code(text)));
  assert.ok(routes.length >= 10, `${routes.length} route modules`);
  const offenders = routes.map((f) => f.file).filter((file) =>
    !/^src\/[a-z_]+\/api\/[a-z_]+\.ts$/.test(file)
  );
  assert.deepEqual(offenders, []);
});

Deno.test("the address library stands apart from the serving layer; the webhook sender has its own client", () => {
  assert.ok(!files.some((f) => f.file === "src/net/ip.ts"));
  assert.ok(files.some((f) => f.file === "src/ip/address.ts"));
  const ip = files.find((f) => f.file === "src/ip/address.ts")!;
  assert.deepEqual(ip.imports.filter((i) => i.startsWith("src/")), []);
  const borrowers = files.filter(({ file, imports }) =>
    file.startsWith("src/webhooks/") && imports.some((i) => i.startsWith("src/net/"))
  );
  assert.deepEqual(borrowers.map((f) => f.file), []);
});

Deno.test("owned infrastructure says in its module doc when it should be deleted", () => {
  const owned = [
    "src/net/edge.ts",
    "src/net/connection.ts",
    "src/net/request_head.ts",
    "src/net/request_body.ts",
    "src/net/listener.ts",
    "src/store/kv/segments.ts",
    "src/store/kv/group_commit.ts",
    "src/crypto/_age_stream.ts",
  ];
  for (const path of owned) {
    const module = files.find((f) => f.file === path);
    assert.ok(module, `${path} exists`);
    const doc = module.text.match(/^\/\*\*[\s\S]*?@module[\s\S]*?\*\//)?.[0] ?? "";
    assert.match(
      doc,
      /\bDelete (this|it|them|the \w+)?[^.]*\bwhen\b/i,
      `${path} says when it goes`,
    );
  }
});
