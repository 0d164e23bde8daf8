/**
 * Configuration: schema, defaults and loading.
 *
 * @module
 */
export { type Config, ConfigSchema } from "./schema.ts";
export { ConfigError, configKeys, type ConfigSources, loadConfig, publicBaseUrl } from "./load.ts";
