/**
 * `sealpost token create|list|revoke`: a person's API tokens, over the `/vault/tokens` API of
 * a running instance, with the person's token (a token makes only tokens with its own scopes,
 * expiring no later than itself: src/people/tokens.ts).
 *
 * @module
 */
import { flagOptions, UsageError } from "./args.ts";
import { need, OWNER_OPTIONS, ownerClient, print, runOwnerGroup } from "./owner.ts";
import { SCOPES } from "../store/ports/person_tokens.ts";
import { SCOPE_TEXT } from "../people/tokens.ts";

const HELP = `Usage: sealpost token <create|list|revoke> [options]

  token create --name NAME --scopes a,b [--expires-days N]
                        Make a token for yourself; it is printed once
  token list            Your tokens: name, scopes, expiry, last use (never the secret)
  token revoke ID       Revoke one of your tokens at once
  --person ID           list, revoke: another person's (an instance admin's token)

Scopes (a token also needs your role on each database):
${SCOPES.map((scope) => `  ${scope.padEnd(15)} ${SCOPE_TEXT[scope]}`).join("\n")}
A token without --expires-days never expires (relay:queue tokens never do).
`;

const OPTIONS = {
  ...OWNER_OPTIONS,
  ...flagOptions("string", ["name", "scopes", "expires-days", "person"]),
} as const;

/** A token as the API lists it. */
interface TokenView {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** `?personId=` for `--person`. */
function personQuery(person: string | undefined): string {
  return person ? `?personId=${encodeURIComponent(person)}` : "";
}

/**
 * Runs `sealpost token ...` (`args` starts with `token`); resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await tokenCommand(["token", "create", "--name", "ci", "--scopes", "records:read"]));
 * ```
 */
export function tokenCommand(args: string[]): Promise<number> {
  return runOwnerGroup(args, HELP, OPTIONS, async (sub, rest, flags) => {
    const client = await ownerClient(flags);
    switch (sub) {
      case "create": {
        const days = flags["expires-days"];
        if (days !== undefined && !/^[0-9]{1,5}$/.test(days)) {
          throw new UsageError(`--expires-days must be a whole number of days, not "${days}"`);
        }
        const created = await client.call<TokenView & { token: string }>(
          "POST",
          "/vault/tokens",
          {
            name: need(flags.name, "--name"),
            scopes: need(flags.scopes, "--scopes").split(",").map((s) => s.trim()),
            ...(days !== undefined ? { expiresInDays: Number(days) } : {}),
          },
        );
        print(flags, created, () =>
          `token id: ${created.id}\n` +
          `scopes:   ${created.scopes.join(", ")}\n` +
          `expires:  ${created.expiresAt ?? "never"}\n` +
          `token:    ${created.token} (shown once)`);
        return 0;
      }
      case "list": {
        const { items } = await client.call<{ items: TokenView[] }>(
          "GET",
          `/vault/tokens${personQuery(flags.person)}`,
        );
        print(flags, items, () =>
          items.length === 0 ? "No tokens" : items.map((t) =>
            [
              t.id,
              t.name,
              t.scopes.join(","),
              `expires ${t.expiresAt ?? "never"}`,
              `last used ${t.lastUsedAt ?? "never"}`,
            ].join("  ")
          ).join("\n"));
        return 0;
      }
      case "revoke": {
        const id = need(rest[0], "the token ID");
        await client.call(
          "DELETE",
          `/vault/tokens/${encodeURIComponent(id)}${personQuery(flags.person)}`,
        );
        print(flags, { revoked: id }, () => `Revoked token ${id}: it is refused from now on`);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "token ${sub}"`);
    }
  });
}
