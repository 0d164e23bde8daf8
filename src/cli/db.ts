/**
 * `sealpost db create|list`: the vault's databases (recipient key pairs registered with the
 * relay), over the `/vault` HTTP API of a running instance, local or remote.
 *
 * @module
 */
import { UsageError } from "./args.ts";
import { need, ownerClient, print, runOwnerGroup } from "./owner.ts";
import { VAULT_OPTIONS, type VaultFlags } from "./vault_flags.ts";

const HELP = `Usage: sealpost db <create|list> [options]

  db create --name NAME   Create a database: a new key pair, registered with the relay
  db list                 The databases of this vault
`;

async function run(sub: string, flags: VaultFlags): Promise<number> {
  const client = await ownerClient(flags);
  switch (sub) {
    case "create": {
      const db = await client.call<{ id: string; fingerprint: string }>(
        "POST",
        "/vault/databases",
        {
          name: need(flags.name, "--name NAME"),
        },
      );
      print(flags, db, () => `database ${db.id}  key fingerprint ${db.fingerprint}`);
      return 0;
    }
    case "list": {
      const { items } = await client.call<
        { items: { id: string; name: string; fingerprint: string }[] }
      >(
        "GET",
        "/vault/databases",
      );
      print(
        flags,
        items,
        () => items.map((d) => `${d.id}  ${d.name}  ${d.fingerprint}`).join("\n"),
      );
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "db ${sub}"`);
  }
}

/**
 * Runs `sealpost db ...` (`args` starts with `db`); resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await dbCommand(["db", "list", "--json"]));
 * ```
 */
export function dbCommand(args: string[]): Promise<number> {
  return runOwnerGroup(args, HELP, VAULT_OPTIONS, (command, _rest, flags) => run(command, flags));
}
