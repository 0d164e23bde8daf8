/**
 * The standing adversarial suite's generators: for every operation of the OpenAPI document a
 * running server publishes, requests with hostile paths, queries, bodies, content types and
 * tokens (fast-check arbitraries), and the checks every answer must pass.
 */
import fc from "fast-check";

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; required: boolean }[];
  /** Top-level members of the JSON request body's schema (none: no JSON body declared). */
  bodyProps: string[] | null;
}

/** A request to send. */
export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
}

/** Real values by parameter or member name, so some requests get past validation. */
export type Seeds = Record<string, string>;

/** Bodies the server accepts, by `"METHOD /path"` of the operation, for mutation. */
export type ValidBodies = Record<string, unknown>;

/**
 * `body` (a valid one) with one hostile change: in the `index`-th object or array (depth
 * first, wrapping around), member `key` replaced or added (an array's element) by `value`.
 */
function mutate(body: unknown, index: number, key: string, value: unknown): unknown {
  const copy = structuredClone(body);
  const containers: (Record<string, unknown> | unknown[])[] = [];
  const walk = (v: unknown) => {
    if (v === null || typeof v !== "object") return;
    containers.push(v as Record<string, unknown> | unknown[]);
    for (const member of Object.values(v)) walk(member);
  };
  walk(copy);
  if (containers.length === 0) return value;
  const node = containers[index % containers.length];
  if (Array.isArray(node)) {
    node[node.length === 0 ? 0 : index % node.length] = value;
  } else {
    const keys = Object.keys(node);
    node[keys.length > 0 && index % 2 ? keys[index % keys.length] : key] = value;
  }
  return copy;
}

interface OpenApiParam {
  name: string;
  in: string;
  required?: boolean;
}

interface OpenApiOperation {
  parameters?: OpenApiParam[];
  requestBody?: {
    content?: Record<string, { schema?: { properties?: Record<string, unknown> } }>;
  };
}

/** Every operation of an OpenAPI 3.1 document. */
export function operationsOf(doc: { paths: Record<string, Record<string, unknown>> }) {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, raw] of Object.entries(ops)) {
      const op = raw as OpenApiOperation;
      const json = op.requestBody?.content?.["application/json"];
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p) => ({
          name: p.name,
          in: p.in,
          required: p.required ?? false,
        })),
        bodyProps: json ? Object.keys(json.schema?.properties ?? {}) : null,
      });
    }
  }
  return out;
}

/** Strings an attacker reaches for: over-long, multi-byte, traversal, numbers out of range. */
const NASTY = [
  "",
  " ",
  "..",
  "../../etc/passwd",
  "%00",
  "%ff%fe",
  "%",
  "\u0000",
  "😀",
  "😀".repeat(700),
  "é".repeat(1500),
  "a".repeat(2100),
  "a".repeat(6000),
  "0".repeat(64),
  "0".repeat(32),
  "f".repeat(24),
  "-1",
  "0",
  "1e309",
  "9".repeat(40),
  "NaN",
  "null",
  "true",
  "[]",
  "{}",
  "__proto__",
  "constructor",
  "AAAA",
  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "\ud800",
  "0x10",
  "1.5",
];

/** A hostile string, or one of the real `seeds`. */
export function hostileString(seeds: string[]): fc.Arbitrary<string> {
  const arbs: fc.Arbitrary<string>[] = [
    fc.constantFrom(...NASTY),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.stringMatching(/^[0-9a-f]{1,80}$/),
    fc.nat().map(String),
    fc.integer({ min: 1, max: 4000 }).map((n) => "x".repeat(n)),
  ];
  if (seeds.length > 0) arbs.push(fc.constantFrom(...seeds));
  return fc.oneof(...arbs);
}

/** Stands for a deeply nested value in a member; {@link withDeepValues} writes it out. */
const DEEP = "\u0000deep:";

/** Replaces each {@link DEEP} marker in JSON `text` by that many nested arrays or objects. */
function withDeepValues(text: string): string {
  return text.replace(/"\\u0000deep:(\d+)"/g, (_, n) => {
    const depth = Number(n);
    return depth % 2 ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" +
      "}".repeat(depth);
  });
}

/** A hostile JSON value for one body member. */
function hostileValue(seeds: string[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 60, max: 8_000 }).map((n) => `${DEEP}${n}`) },
    { weight: 2, arbitrary: hostileString(seeds) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(-1, 0, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, null),
    },
    { weight: 1, arbitrary: fc.array(hostileString(seeds), { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.constant("a".repeat(70_000)) },
  );
}

/** A deeply nested JSON text. */
const deepJson = fc.integer({ min: 100, max: 20_000 }).chain((n) =>
  fc.constantFrom("[".repeat(n) + "]".repeat(n), '{"a":'.repeat(n) + "1" + "}".repeat(n))
);

/** A hostile body for `op`. */
function hostileBody(
  op: Operation,
  seeds: Seeds,
  valid: unknown,
): fc.Arbitrary<string | Uint8Array<ArrayBuffer> | undefined> {
  const all = Object.values(seeds);
  const member = (name: string) => hostileValue(seeds[name] ? [seeds[name]] : all);
  const shaped = op.bodyProps && op.bodyProps.length > 0
    ? fc.record(
      Object.fromEntries(op.bodyProps.map((p) => [p, member(p)])),
      { requiredKeys: [] },
    ).map((v) => withDeepValues(JSON.stringify(v)))
    : fc.constant("{}");
  // A valid body with one hostile change reaches past validation to the handler and the store.
  const mutated = valid === undefined ? shaped : fc.tuple(
    fc.nat(),
    fc.oneof(fc.constantFrom("x", "__proto__", "id", "extra"), fc.string({ maxLength: 8 })),
    hostileValue(Object.values(seeds)),
  ).map(([index, key, value]) => withDeepValues(JSON.stringify(mutate(valid, index, key, value))));
  return fc.oneof(
    { weight: 8, arbitrary: mutated },
    { weight: 4, arbitrary: shaped },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => new Uint8Array(b)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Puts a hostile string into a path segment: encoded, or raw (query and fragment cut). */
function segment(value: string, raw: boolean): string {
  const text = value.toWellFormed();
  return raw ? text.replace(/[?#/]/g, "") : encodeURIComponent(text);
}

/** Requests to `op` with hostile parts; `tokens` are the bearer tokens to try besides junk. */
export function hostileRequest(
  op: Operation,
  seeds: Seeds,
  tokens: string[],
  valid: ValidBodies = {},
): fc.Arbitrary<HostileRequest> {
  const all = Object.values(seeds);
  const pathParams = op.params.filter((p) => p.in === "path");
  const queryParams = op.params.filter((p) => p.in === "query");
  const param = (name: string) => hostileString(seeds[name] ? [seeds[name]] : all);
  return fc.record({
    path: fc.tuple(...pathParams.map((p) => fc.tuple(param(p.name), fc.boolean())))
      .map((values) => {
        let path = op.path;
        pathParams.forEach((p, i) => {
          path = path.replace(`{${p.name}}`, segment(values[i][0], values[i][1]));
        });
        return path;
      }),
    query: fc.record(
      Object.fromEntries(
        [...queryParams.map((p) => p.name), "junk"].map((name) => [name, param(name)]),
      ),
      { requiredKeys: [] },
    ),
    body: hostileBody(op, seeds, valid[`${op.method} ${op.path}`]),
    contentType: fc.oneof(
      { weight: 4, arbitrary: fc.constant("application/json") },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "application/json; charset=utf-8",
          "text/plain",
          "application/octet-stream",
          "multipart/form-data; boundary=x",
          "",
        ),
      },
    ),
    // Mostly real tokens, so that requests get past authentication to the handlers.
    token: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...tokens) },
      { weight: 1, arbitrary: fc.constantFrom("", "spo_", "spa_bogus", "x".repeat(5000)) },
      { weight: 1, arbitrary: fc.string({ maxLength: 60 }).map((s) => `spo_${s}`) },
    ),
  }).map(({ path, query, body, contentType, token }) => {
    const search = new URLSearchParams(query as Record<string, string>).toString();
    const headers: Record<string, string> = {};
    if (contentType) headers["content-type"] = contentType;
    // Header values must be ByteStrings without line breaks: anything else fetch refuses.
    const safeToken = token.replace(/[^\x20-\x7e]/g, "");
    if (safeToken) headers.authorization = `Bearer ${safeToken}`;
    const sendsBody = op.method !== "GET" && op.method !== "HEAD";
    return {
      method: op.method,
      path: search ? `${path}?${search}` : path,
      headers,
      body: sendsBody ? body : undefined,
    };
  });
}

/** What one answer broke, or null when it passed: no 5xx, the JSON error shape on a 4xx. */
export function checkAnswer(status: number, text: string): string | null {
  if (status >= 500) return `answered ${status}: ${text.slice(0, 300)}`;
  if (status < 400) return null;
  let body: { error?: { code?: unknown; message?: unknown; field?: unknown } };
  try {
    body = JSON.parse(text);
  } catch {
    return `answered ${status} without a JSON body: ${text.slice(0, 200)}`;
  }
  const error = body?.error;
  if (
    !error || typeof error.code !== "string" || !/^[a-z][a-z0-9_]*$/.test(error.code) ||
    typeof error.message !== "string" ||
    (error.field !== undefined && typeof error.field !== "string")
  ) {
    return `answered ${status} without the error shape: ${text.slice(0, 200)}`;
  }
  return null;
}
