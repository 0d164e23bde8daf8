/**
 * Boundaries of the source tree, read from its import lines: the domain throws HTTP-free
 * errors (src/errors) and only the HTTP layer knows statuses; authentication and
 * authorization live in src/auth, with owner principals that always carry their user.
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
  return /(^|_)routes\.tsx?$/.test(file.split("/").at(-1)!) || file === "src/console/index.ts";
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

Deno.test("Deno KV stays behind the store: no module outside src/store (and the KV backup) opens or holds it", () => {
  /** The code of a module without its comments. */
  const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  // `sealpost backup` archives a Deno KV data dir (it answers otherwise for PostgreSQL).
  const allowed = (file: string) => file.startsWith("src/store/") || file.startsWith("src/backup/");
  const offenders = files.filter((f) =>
    !allowed(f.file) &&
    (/\bDeno\.(openKv\b|Kv[A-Za-z]*\b)/.test(code(f.text)) ||
      f.imports.some((i) => i === "src/store/kv/file.ts" || i.startsWith("src/store/kv/")))
  ).map((f) => f.file);
  assert.deepEqual(offenders, []);
  // The scan sees what it is about: the store's own KV modules match.
  assert.ok(files.some((f) => f.file === "src/store/kv/open.ts" && /Deno\.Kv\b/.test(f.text)));
});
