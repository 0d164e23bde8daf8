/**
 * What the island bundles see as `zod` (see `src/web/build_islands.ts`): a `z` namespace of
 * only the zod builders the shared schemas (`src/forms`, `src/sdk`) call. Importing them by
 * name lets the bundler drop the rest of zod, its 40 locales above all; the English messages
 * are zod's default either way.
 *
 * @module
 */
import * as z from "./names.ts";

export { z };
