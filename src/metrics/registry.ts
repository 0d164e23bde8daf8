/**
 * A small metrics registry rendering the Prometheus text exposition format (version 0.0.4):
 * counters, gauges and histograms with labels, and collectors that set gauges at scrape time.
 *
 * @module
 */

/** Label names to values of one series. */
export type Labels = Record<string, string>;

/** The content type of the text exposition format. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const NEEDS_ESCAPE = /[\\"\n]/;

function escapeLabel(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");
}

function escapeHelp(value: string): string {
  return value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n");
}

function labelText(labels: Labels): string {
  // Called per request (the series key): a plain loop, no intermediate arrays.
  let text = "";
  for (const k in labels) text += `${text ? "," : "{"}${k}="${escapeLabel(labels[k])}"`;
  return text && `${text}}`;
}

function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/** One metric family: a name, its help and type, and its series. */
abstract class Family {
  abstract readonly type: "counter" | "gauge" | "histogram";
  constructor(readonly name: string, readonly help: string) {}

  /** The sample lines of this family. */
  abstract samples(): string[];

  /** The family with its `# HELP` and `# TYPE` lines. */
  render(): string {
    return [
      `# HELP ${this.name} ${escapeHelp(this.help)}`,
      `# TYPE ${this.name} ${this.type}`,
      ...this.samples(),
    ].join("\n");
  }
}

/** Series of one value per label set. */
abstract class ValueFamily extends Family {
  protected readonly series = new Map<string, { labels: Labels; value: number }>();

  protected slot(labels: Labels): { labels: Labels; value: number } {
    const key = labelText(labels);
    let slot = this.series.get(key);
    if (!slot) this.series.set(key, slot = { labels, value: 0 });
    return slot;
  }

  /** The current value of a series (0 when it has none). */
  get(labels: Labels = {}): number {
    return this.series.get(labelText(labels))?.value ?? 0;
  }

  samples(): string[] {
    return [...this.series.values()].map((s) =>
      `${this.name}${labelText(s.labels)} ${numberText(s.value)}`
    );
  }
}

/**
 * A value that only goes up.
 *
 * @example
 * ```ts
 * const requests = new Registry().counter("http_requests_total", "Requests served");
 * requests.inc({ route: "/healthz", status: "200" });
 * ```
 */
export class Counter extends ValueFamily {
  readonly type = "counter";

  /** Adds `by` (default 1) to the series of `labels`. */
  inc(labels: Labels = {}, by = 1): void {
    this.slot(labels).value += by;
  }
}

/**
 * A value that goes up and down; collectors set it at scrape time.
 *
 * @example
 * ```ts
 * const depth = new Registry().gauge("queue_depth", "Envelopes waiting");
 * depth.set({ fingerprint: "ab12" }, 3);
 * ```
 */
export class Gauge extends ValueFamily {
  readonly type = "gauge";

  /** Sets the series of `labels`. */
  set(labels: Labels, value: number): void {
    this.slot(labels).value = value;
  }

  /** Drops every series (a collector that sets them all again calls this first). */
  clear(): void {
    this.series.clear();
  }
}

/**
 * Observations counted into cumulative buckets, with their sum and count.
 *
 * @example
 * ```ts
 * const lag = new Registry().histogram("lag_seconds", "Lag", [0.1, 1, 10]);
 * lag.observe({}, 0.4);
 * ```
 */
export class Histogram extends Family {
  readonly type = "histogram";
  readonly #series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();

  constructor(name: string, help: string, readonly buckets: readonly number[]) {
    super(name, help);
  }

  /** Records one observation of `value` in the series of `labels`. */
  observe(labels: Labels, value: number): void {
    const key = labelText(labels);
    let s = this.#series.get(key);
    if (!s) {
      this.#series.set(
        key,
        s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 },
      );
    }
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  samples(): string[] {
    const out: string[] = [];
    for (const s of this.#series.values()) {
      const count = s.count;
      for (const [i, bound] of this.buckets.entries()) {
        out.push(
          `${this.name}_bucket${labelText({ ...s.labels, le: String(bound) })} ${s.counts[i]}`,
        );
      }
      out.push(`${this.name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${count}`);
      out.push(`${this.name}_sum${labelText(s.labels)} ${numberText(s.sum)}`);
      out.push(`${this.name}_count${labelText(s.labels)} ${count}`);
    }
    return out;
  }
}

/**
 * Metric families in registration order, and the collectors run before each scrape.
 *
 * @example
 * ```ts
 * const registry = new Registry();
 * const up = registry.gauge("up", "Whether the process runs");
 * registry.collect(() => up.set({}, 1));
 * const text = await registry.render();
 * ```
 */
export class Registry {
  readonly #families: Family[] = [];
  readonly #collectors: (() => void | Promise<void>)[] = [];
  #last: Promise<unknown> = Promise.resolve();

  #add<F extends Family>(family: F): F {
    if (this.#families.some((f) => f.name === family.name)) {
      throw new Error(`Metric "${family.name}" is registered twice`);
    }
    this.#families.push(family);
    return family;
  }

  /** Registers a counter. */
  counter(name: string, help: string): Counter {
    return this.#add(new Counter(name, help));
  }

  /** Registers a gauge. */
  gauge(name: string, help: string): Gauge {
    return this.#add(new Gauge(name, help));
  }

  /** Registers a histogram with upper bucket bounds `buckets` (ascending). */
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, buckets));
  }

  /** Adds a function that sets gauges before each scrape. */
  collect(collector: () => void | Promise<void>): void {
    this.#collectors.push(collector);
  }

  /**
   * Runs the collectors, then renders every family in the text exposition format. Scrapes
   * run one at a time, so two at once never interleave a collector's clear and sets.
   */
  render(): Promise<string> {
    const run = this.#last.then(async () => {
      for (const collector of this.#collectors) await collector();
      return this.#families.map((f) => f.render()).join("\n") + "\n";
    });
    this.#last = run.catch(() => {});
    return run;
  }
}
