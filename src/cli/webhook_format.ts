/**
 * What the webhook owner API returns, and how `sealpost webhook|deliveries` prints it as text
 * (`--json` prints it as is).
 *
 * @module
 */

/** A configuration's failure flag, as the API shows it. */
export type FlaggedFailure = {
  at: string;
  deliveryId: string | null;
  reason: "permanent" | "exhausted" | "blocked";
  status: number | null;
  error: string | null;
};

/** A webhook configuration, as the API shows it (secrets masked). */
export type Webhook = {
  id: string;
  formId: string;
  name: string;
  url: string;
  method: string;
  mode: string;
  template: string | null;
  bearer: string | null;
  headers: string[];
  signingSecret: string | null;
  signatureHeader: string;
  mappings: Record<string, string>;
  events: string[];
  standardWebhooks: boolean;
  /** Absent from instances older than the setting. */
  concurrency?: number | null;
  flagged: FlaggedFailure | null;
  createdAt: string;
  updatedAt: string;
  generatedSigningSecret?: string;
};

/** A delivery, as the API shows it. */
export type Delivery = {
  id: string;
  webhookId: string;
  recordId: string;
  reason: string;
  status: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastSnippet: string | null;
  createdAt: string;
  completedAt: string | null;
};

/** One HTTP attempt of a delivery, as the API shows it. */
export type Attempt = {
  n: number;
  at: string;
  status: number | null;
  durationMs: number;
  outcome: string;
  error: string | null;
  snippet: string | null;
  retryAfterSeconds: number | null;
};

/** The outcome of `webhook test`. */
export type TestResult = {
  contentType: string;
  body: string;
  status: number | null;
  durationMs: number;
  outcome: string;
  error: string | null;
  snippet: string | null;
};

/** A page of deliveries. */
export type Page = { items: Delivery[]; nextCursor: string | null };

/** A failure flag on one line. */
function flagText(f: FlaggedFailure): string {
  return `${f.reason}${f.status === null ? "" : ` HTTP ${f.status}`}${
    f.error ? `: ${f.error}` : ""
  } (${f.deliveryId === null ? "" : `delivery ${f.deliveryId}, `}${f.at})`;
}

/** A configuration on one line, for `webhook list`. */
export function webhookLine(w: Webhook): string {
  return [
    w.id,
    `${w.method} ${w.url}`,
    w.mode,
    w.events.length ? w.events.join(",") : "no events",
    ...(w.name ? [w.name] : []),
    ...(w.flagged ? [`FLAGGED ${flagText(w.flagged)}`] : []),
  ].join("  ");
}

/** A configuration, one setting a line, for `webhook show|add|edit`. */
export function webhookText(w: Webhook): string {
  const mappings = Object.entries(w.mappings).map(([field, key]) => `${field} -> ${key}`);
  const rows: [string, string][] = [
    ["id", w.id],
    ["form", w.formId],
    ["name", w.name || "-"],
    ["target", `${w.method} ${w.url}`],
    ["mode", w.mode],
    ["bearer", w.bearer ?? "none"],
    ["headers", w.headers.join(`\n${" ".repeat(19)}`) || "none"],
    ["signing secret", w.signingSecret ?? "none"],
    ["signature header", w.signatureHeader],
    ["standard webhooks", w.standardWebhooks ? "yes" : "no"],
    ["concurrency", w.concurrency ? String(w.concurrency) : "instance default"],
    ["mappings", mappings.join(", ") || "none (every field under its id)"],
    ["events", w.events.join(", ") || "none"],
    ["created", w.createdAt],
    ["updated", w.updatedAt],
    ["flagged", w.flagged ? flagText(w.flagged) : "no"],
  ];
  let text = rows.map(([label, value]) => `${`${label}:`.padEnd(19)}${value}`).join("\n");
  if (w.template !== null) text += `\ntemplate:\n${w.template.replace(/^/gm, "  ")}`;
  if (w.generatedSigningSecret) {
    text += `\ngenerated signing secret: ${w.generatedSigningSecret}\n` +
      "  (shown this once: give it to the receiver now)";
  }
  return text;
}

/** A delivery on one line. */
export function deliveryLine(d: Delivery): string {
  return [
    d.id,
    d.recordId,
    d.reason,
    d.status,
    `${d.attempts} attempt${d.attempts === 1 ? "" : "s"}`,
    ...(d.lastStatus === null ? [] : [`HTTP ${d.lastStatus}`]),
    ...(d.lastError ? [d.lastError] : []),
  ].join("  ");
}

/** An attempt on one line. */
export function attemptLine(a: Attempt): string {
  return [
    `#${a.n}`,
    a.at,
    a.status === null ? "no response" : `HTTP ${a.status}`,
    `${Math.round(a.durationMs)} ms`,
    a.outcome,
    ...(a.retryAfterSeconds === null ? [] : [`Retry-After ${a.retryAfterSeconds} s`]),
    ...(a.error ? [a.error] : []),
    ...(a.snippet ? [JSON.stringify(a.snippet)] : []),
  ].join("  ");
}

/** The outcome of `webhook test`: status line, error, response and the body sent. */
export function testText(r: TestResult): string {
  const lines = [
    `${r.outcome}  ${r.status === null ? "no response" : `HTTP ${r.status}`}  ${
      Math.round(r.durationMs)
    } ms`,
  ];
  if (r.error) lines.push(`error:    ${r.error}`);
  if (r.snippet) lines.push(`response: ${r.snippet}`);
  lines.push(`sent:     ${r.contentType}`, r.body);
  return lines.join("\n");
}
