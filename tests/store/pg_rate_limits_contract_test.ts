import { PgRateLimits } from "../../src/store/pg/rate_limits.ts";
import { rateLimitsContract } from "./contract/rate_limits.ts";
import { freshPg } from "./contract/_pg.ts";

rateLimitsContract("postgres", async (now) => {
  const pg = await freshPg();
  return {
    port: new PgRateLimits(pg.sql, { now }),
    second: () => new PgRateLimits(pg.open(), { now }),
    close: pg.close,
  };
});
