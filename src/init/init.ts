/**
 * `sealpost init`: prepares a data dir, idempotently.
 *
 * @module
 */
import type { Config } from "../config/index.ts";
import { publicBaseUrl } from "../config/index.ts";
import { createAdminToken, createUser } from "../relay/identity.ts";
import { openStore } from "../store/kv.ts";
import { KvIdentity } from "../store/kv/identity.ts";
import { migrateStore, type MigrationResult } from "../store/schema.ts";
import {
  type Credentials,
  dataPaths,
  newRelaySecretText,
  readCredentials,
  readIfExists,
  writeSecretFile,
} from "./data_dir.ts";

/** What init reports. */
export interface InitResult extends Credentials {
  dataDir: string;
  /** False when the data dir was already initialised. */
  created: boolean;
  /** The store's schema version before and after, and the migrations that ran. */
  migration: MigrationResult;
}

/**
 * Creates the data dir, the relay secret, an admin token, a first user with an owner
 * token, and the credentials file. Running it again changes nothing, except that a store
 * written by an older Sealpost is migrated to the current schema version (one written by a
 * newer Sealpost is refused with a `SchemaVersionError`).
 */
export async function initDataDir(config: Config): Promise<InitResult> {
  const paths = dataPaths(config.data_dir);
  await Deno.mkdir(paths.dir, { recursive: true, mode: 0o700 });
  if (await readIfExists(paths.relaySecret) === null) {
    await writeSecretFile(paths.relaySecret, newRelaySecretText() + "\n");
  }
  const kv = await openStore(paths.dir);
  try {
    const migration = await migrateStore(kv, paths.dir);
    const existing = await readCredentials(paths.dir);
    if (existing) return { ...existing, dataDir: paths.dir, created: false, migration };
    const identity = new KvIdentity(kv);
    const adminToken = await createAdminToken(identity);
    const { user, ownerToken } = await createUser(identity, "owner");
    const credentials: Credentials = {
      baseUrl: publicBaseUrl(config),
      userId: user.id,
      ownerToken,
      adminToken,
    };
    await writeSecretFile(paths.credentials, JSON.stringify(credentials, null, 2) + "\n");
    return { ...credentials, dataDir: paths.dir, created: true, migration };
  } finally {
    kv.close();
  }
}
