/**
 * `sealpost form close FORMID [--message TEXT]`, `form reopen FORMID` and
 * `form delete FORMID`: a form's life after publishing, over the vault's owner API. A closed
 * form's page and submissions answer with the owner's message; a deleted one is unpublished
 * and leaves the form list, its records kept until deleted one by one.
 *
 * @module
 */
import type { SealpostClient } from "./client.ts";
import { need, type OwnerFlags, print } from "./owner.ts";

/** The form fields these commands print. */
interface LifecycleForm {
  formId: string;
  title: string;
  closed: { message: string; closedAt: string } | null;
  deletedAt: string | null;
}

/** The commands of this module (the `form` group's sub-commands). */
export const LIFECYCLE_COMMANDS = ["close", "reopen", "delete"];

/**
 * Runs `form close|reopen|delete FORMID`; resolves to the exit code. With `--json` it prints
 * the form as the API answers it (`closed`, `deletedAt`).
 *
 * @example
 * ```ts
 * await formLifecycle(client, "close", ["rsvp"], { message: "See you next year!" });
 * ```
 */
export async function formLifecycle(
  client: SealpostClient,
  sub: string,
  args: string[],
  flags: OwnerFlags & { message?: string },
): Promise<number> {
  const formId = need(args[0], "FORMID");
  const path = `/vault/forms/${encodeURIComponent(formId)}`;
  if (sub === "close") {
    const form = await client.call<LifecycleForm>("POST", `${path}/close`, {
      message: flags.message ?? "",
    });
    print(flags, form, () =>
      `Closed ${form.formId}: its page and submissions now answer ` +
      (form.closed?.message
        ? `"${form.closed.message}"`
        : "with the default words (no --message given)") +
      `\nReopen it with: form reopen ${form.formId}`);
    return 0;
  }
  if (sub === "reopen") {
    const form = await client.call<LifecycleForm>("POST", `${path}/reopen`);
    print(flags, form, () => `Reopened ${form.formId}: it takes submissions again`);
    return 0;
  }
  await client.call("DELETE", path);
  const form = await client.call<LifecycleForm>("GET", path);
  print(
    flags,
    form,
    () =>
      `Deleted ${form.formId}: unpublished, and out of the form list. Its records are kept ` +
      `until you delete them (records list ${form.formId}).`,
  );
  return 0;
}
