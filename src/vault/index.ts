/**
 * The vault: the owner's side of Sealpost. It holds the private keys, signs and publishes form
 * manifests, opens what the relay queued, validates each payload against the archived schema
 * of its form version, and saves records (or quarantines what it cannot save).
 *
 * @module
 */
export { DEMO_FIELDS, type DemoInfo, Vault, type VaultOptions } from "./service.ts";
export { MAX_RETENTION_DAYS, sweepRetention } from "./retention.ts";
export { releaseFiles, type ReleaseResult } from "./file_release.ts";
export { VaultKeyError, VaultKeys, vaultPaths } from "./keys.ts";
export type { RelayLink } from "./relay_link.ts";
export { LocalRelayLink } from "./local_relay_link.ts";
export { HttpRelayLink } from "./http_relay_link.ts";
export { type DrainResult, type IngestOptions, Ingestor, type IngestOutcome } from "./ingest.ts";
export { buildManifest, type VaultForm, VaultForms } from "./forms.ts";
export { MAX_RECORD_BYTES, savedAtOf, type VaultRecord } from "../store/ports/records.ts";
export { vaultFileRoutes, vaultRoutes } from "./api/index.ts";
export { openVault, type VaultSetup } from "./setup.ts";
export { FILE_LINK_PATH, type FileLink, VaultFiles } from "./files.ts";
