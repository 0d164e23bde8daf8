/**
 * Sealpost: end-to-end encrypted form backend. `deno run -A main.ts --help`.
 *
 * @module
 */
import { main } from "./src/cli/main.ts";

if (import.meta.main) Deno.exit(await main(Deno.args));
