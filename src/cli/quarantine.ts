/**
 * `sealpost quarantine list|retry`: envelopes the vault could not make records of, and why;
 * processing them again after fixing the form. Over the `/vault` HTTP API of a running
 * instance, local or remote.
 *
 * @module
 */
import { UsageError } from "./args.ts";
import { ownerClient, print, runOwnerGroup } from "./owner.ts";
import { VAULT_OPTIONS, type VaultFlags } from "./vault_flags.ts";

const HELP = `Usage: sealpost quarantine <list|retry> [options]

  quarantine list [--form FORMID]        Envelopes that could not become records, and why
  quarantine retry [ID]                  Process one (or every) quarantined envelope again,
                                         after fixing the form
`;

async function run(sub: string, args: string[], flags: VaultFlags): Promise<number> {
  const client = await ownerClient(flags);
  switch (sub) {
    case "list": {
      const query = flags.form ? `?formId=${encodeURIComponent(flags.form)}` : "";
      const { items } = await client.call<
        { items: { id: string; formId: string; code: string; reason: string }[] }
      >("GET", `/vault/quarantine${query}`);
      print(
        flags,
        items,
        () =>
          items.length === 0
            ? "Quarantine is empty"
            : items.map((q) => `${q.id}  ${q.formId}  ${q.code}: ${q.reason}`).join("\n"),
      );
      return 0;
    }
    case "retry": {
      const { items } = await client.call<
        { items: { id: string; outcome: string; reason?: string }[] }
      >(
        "POST",
        "/vault/quarantine/retry",
        args[0] ? { id: args[0] } : {},
      );
      print(
        flags,
        items,
        () =>
          items.map((q) => `${q.id}  ${q.outcome}${q.reason ? `: ${q.reason}` : ""}`).join("\n") ||
          "Nothing to retry",
      );
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "quarantine ${sub}"`);
  }
}

/**
 * Runs `sealpost quarantine ...` (`args` starts with `quarantine`); resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await quarantineCommand(["quarantine", "retry"]));
 * ```
 */
export function quarantineCommand(args: string[]): Promise<number> {
  return runOwnerGroup(args, HELP, VAULT_OPTIONS, run);
}
