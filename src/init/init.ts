/**
 * `sealpost init`: prepares a data dir and its store, idempotently.
 *
 * @module
 */
import { type Config, publicBaseUrl } from "../config/index.ts";
import { createAdminToken, createUser } from "../relay/identity.ts";
import { setUpConfiguredStore, type StoreMigration } from "../store/open.ts";
import {
  type Credentials,
  dataPaths,
  readCredentials,
  writeSecretFile,
} from "../store/data_dir.ts";

/** What init reports. */
export interface InitResult {
  dataDir: string;
  /** False when the store was already initialised (by this data dir or another process). */
  created: boolean;
  /** The first user (owner of the vault's demo form). */
  userId: string;
  /**
   * The tokens `init` created, from this data dir's credentials file; null when this process
   * joined a database another process initialised (the tokens are in that one's data dir).
   */
  credentials: Credentials | null;
  /** The store's schema version before and after, and the migrations that ran. */
  migration: StoreMigration;
}

/**
 * Creates the data dir, the relay secret (in the data dir, or once in a shared database), an
 * admin token, a first user with an owner token, and the credentials file. Running it again
 * changes nothing, except that a store written by an older Sealpost is migrated to the current
 * schema version (one written by a newer Sealpost is refused with a `SchemaVersionError`). A
 * process whose store is a database other processes initialised joins it: no second admin
 * token or first user.
 *
 * @example
 * ```ts
 * const { created, credentials } = await initDataDir(config);
 * ```
 */
export async function initDataDir(config: Config): Promise<InitResult> {
  const paths = dataPaths(config.data_dir);
  await Deno.mkdir(paths.dir, { recursive: true, mode: 0o700 });
  const setup = await setUpConfiguredStore(config);
  try {
    const { migration, identity } = setup;
    const existing = await readCredentials(paths.dir);
    if (existing) {
      return {
        dataDir: paths.dir,
        created: false,
        userId: existing.userId,
        credentials: existing,
        migration,
      };
    }
    let credentials: Credentials | null = null;
    const first = await setup.initialiseOnce(async () => {
      const adminToken = await createAdminToken(identity);
      // No display name: the form page's trust line then says "the form's owner" (a user made
      // with `user add --name` is named on the pages of its forms).
      const { user, ownerToken } = await createUser(identity, "");
      credentials = { baseUrl: publicBaseUrl(config), userId: user.id, ownerToken, adminToken };
      await writeSecretFile(paths.credentials, JSON.stringify(credentials, null, 2) + "\n");
      return user.id;
    });
    return {
      dataDir: paths.dir,
      created: first.created,
      userId: first.userId,
      credentials,
      migration,
    };
  } finally {
    await setup.close();
  }
}
