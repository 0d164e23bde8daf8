import { MemoryRateLimits } from "../../src/store/kv/rate_limits.ts";
import { rateLimitsContract } from "./contract/rate_limits.ts";

rateLimitsContract(
  "in memory",
  (now) => Promise.resolve({ port: new MemoryRateLimits({ now }), close: () => Promise.resolve() }),
);
