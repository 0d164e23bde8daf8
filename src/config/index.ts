/**
 * Configuration: schema, defaults and loading.
 *
 * @module
 */
export {
  type Config,
  ConfigSchema,
  LETS_ENCRYPT_DIRECTORY,
  MAX_BLOB_URL_LIFETIME_SECONDS,
  MAX_WEBHOOK_CONCURRENCY,
  tlsEnabled,
} from "./schema.ts";
export {
  ConfigError,
  type ConfigKey,
  configKeys,
  type ConfigSources,
  type EnvKind,
  loadConfig,
  OTHER_VARIABLES,
  publicBaseUrl,
  unknownVariables,
} from "./load.ts";
export {
  type AddressWarning,
  addressWarning,
  canonicalAddress,
  type HostKind,
  hostKind,
  sameAddress,
} from "./address.ts";
