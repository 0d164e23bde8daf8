/**
 * The Deno KV backend's face to the command line's store operations (src/ops: backup and
 * restore of a data dir, the move to PostgreSQL and S3): the store file, the segment files'
 * hold, the blob rows they copy, and the schema check. Serving opens the backend through
 * src/store/open.ts, never through this module.
 *
 * @module
 */
export { KV_FILE, openStore } from "./file.ts";
export { blobKeys } from "./keys.ts";
export { migrateStore } from "./schema.ts";
export { HOLD_FILE, holdSegments, SEGMENTS_DIR } from "./segments.ts";
