/**
 * The rate-limit port on PostgreSQL: `relay_rate_buckets`, one row per family and key, shared
 * by every relay process. A take is one statement: an upsert that refills the bucket and takes
 * a token only when one is there (the row lock orders takes from every process), answering the
 * wait from the row as it stands when it takes none. A bucket that is full again is the same as
 * no bucket, so rows are pruned once full (`full_at_ms`), at most once a minute per process.
 *
 * @module
 */
import type { RateLimitPort, RateLimitRule } from "../ports/rate_limits.ts";
import type { Sql } from "./db.ts";

/** How often one process deletes the buckets that are full again. */
const PRUNE_INTERVAL_MS = 60_000;

/** Options of {@linkcode PgRateLimits}. */
export interface PgRateLimitsOptions {
  /**
   * The clock, in epoch ms (tests). Default: the database's clock, one clock for every relay
   * however their own drift.
   */
  now?: () => number;
}

/**
 * Token buckets in PostgreSQL.
 *
 * @example
 * ```ts
 * const limits = new PgRateLimits(sql);
 * const wait = await limits.take("submissions", "203.0.113.9", { per_minute: 600, burst: 100 });
 * ```
 */
export class PgRateLimits implements RateLimitPort {
  #nextPrune = 0;

  constructor(private readonly sql: Sql, private readonly options: PgRateLimitsOptions = {}) {}

  async take(family: string, key: string, rule: RateLimitRule): Promise<number> {
    const perMs = rule.per_minute / 60_000;
    const burst = rule.burst;
    const clock = this.options.now?.() ?? null;
    // `excluded.updated_ms` is this take's time. The take commits without waiting for its WAL
    // flush (synchronous_commit off for this transaction only): a crash may forget the last
    // takes of a bucket, which only lets a client a few requests more; nothing else depends on
    // them.
    const [row] = await this.sql<{ taken: boolean; wait_ms: number }[]>`
      with now as (
        select coalesce(${clock}::float8, extract(epoch from clock_timestamp()) * 1000) as ms,
          set_config('synchronous_commit', 'off', true) as commit_mode
      ), taken as (
        insert into relay_rate_buckets as b (family, key, tokens, updated_ms, full_at_ms)
        select ${family}, ${key}, ${burst}::float8 - 1, now.ms, now.ms + 1 / ${perMs}::float8
        from now
        on conflict (family, key) do update set
          tokens = least(${burst}::float8,
            b.tokens + greatest(0, excluded.updated_ms - b.updated_ms) * ${perMs}::float8) - 1,
          updated_ms = greatest(b.updated_ms, excluded.updated_ms),
          full_at_ms = greatest(b.updated_ms, excluded.updated_ms) + (${burst}::float8 + 1 -
            least(${burst}::float8,
              b.tokens + greatest(0, excluded.updated_ms - b.updated_ms) * ${perMs}::float8)
          ) / ${perMs}::float8
        where least(${burst}::float8,
          b.tokens + greatest(0, excluded.updated_ms - b.updated_ms) * ${perMs}::float8) >= 1
        returning true as taken, 0::float8 as wait_ms
      )
      select taken, wait_ms from taken
      union all
      select false, (1 - least(${burst}::float8,
          b.tokens + greatest(0, now.ms - b.updated_ms) * ${perMs}::float8)) / ${perMs}::float8
      from relay_rate_buckets b, now
      where b.family = ${family} and b.key = ${key} and not exists (select 1 from taken)`;
    await this.#pruneWhenDue(clock);
    if (row?.taken) return 0;
    // The wait is read as of the statement's start: a bucket another process emptied or made
    // meanwhile reads fuller (or absent) than it is; at least a second, then.
    return Math.max(1, Math.ceil((row?.wait_ms ?? 0) / 1000));
  }

  /** Deletes the buckets full again (the same as none), once a minute from one take. */
  async #pruneWhenDue(clock: number | null): Promise<void> {
    const now = Date.now();
    if (now < this.#nextPrune) return;
    this.#nextPrune = now + PRUNE_INTERVAL_MS;
    await this.sql`
      delete from relay_rate_buckets
      where full_at_ms <= coalesce(${clock}::float8, extract(epoch from clock_timestamp()) * 1000)`;
  }
}
