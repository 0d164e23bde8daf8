/**
 * The flags of the vault's owner command groups (`db` in db.ts, `form` in form.ts, `records`
 * in records.ts, `quarantine` in quarantine.ts): one table for the four, so each group
 * accepts (and ignores) a flag of another.
 *
 * @module
 */
import { flagOptions, type Parsed } from "./args.ts";
import { OWNER_OPTIONS } from "./owner.ts";

/** The parseArgs options of the vault's owner commands, the common owner flags included. */
export const VAULT_OPTIONS = {
  ...OWNER_OPTIONS,
  ...flagOptions("string", [
    "name",
    "db",
    "id",
    "title",
    "fields",
    "out",
    "limit",
    "format",
    "form",
    "retention-days",
    "allowed-origins",
    "submit-label",
    "files",
    "drafts",
    "with-files",
    "message",
  ]),
  publish: { type: "boolean" },
} as const;

/** The flags of the vault's owner commands as parsed. */
export type VaultFlags = Parsed<typeof VAULT_OPTIONS>["values"];
