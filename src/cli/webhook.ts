/**
 * The owner's webhook commands: `webhook add|list|show|edit|remove|test` and
 * `deliveries list|show|retry`. Clients of the webhook owner API (`/owner/forms/{formId}/webhooks`,
 * `/owner/webhooks/...`, `/owner/deliveries/...`) of a running instance, local or remote.
 * Secrets are shown as the API shows them: masked, except a generated signing secret, once.
 *
 * @module
 */
import type { SealpostClient } from "./client.ts";
import { UsageError } from "./args.ts";
import { programCommand } from "./program.ts";
import { need, OWNER_OPTIONS, ownerClient, parseLimit, print, runOwnerGroup } from "./owner.ts";
import { readValues } from "./submit.ts";
import { COMMANDS, type Flag, type Flags, OPTIONS, settingsBody } from "./webhook_flags.ts";
import {
  type Attempt,
  attemptLine,
  type Delivery,
  deliveryLine,
  type Page,
  type TestResult,
  testText,
  type Webhook,
  webhookLine,
  webhookText,
} from "./webhook_format.ts";

const SETTINGS_HELP = `
Settings (add, edit; edit sends only the ones given):
  --target URL              Where to send (add: or the TARGET_URL argument; --url is the
                            instance's URL, not the webhook's)
  --name NAME               A name for the owner
  --method METHOD           POST (default), PUT or PATCH
  --mode MODE               default (flat JSON), json_template, xml_template, form
  --template FILE           The template of the template modes ("-": stdin)
  --bearer-file FILE        Bearer token from FILE ("-": stdin), sent as Authorization: Bearer
  --bearer TOKEN            The same on the command line (lands in your shell history)
  --header "Name: value"    A custom header; repeat for more (edit: replaces all of them)
  --secret-file FILE        Signing secret from FILE ("-": stdin), 16 to 512 visible characters
  --secret SECRET           The same on the command line (lands in your shell history)
  --generate-secret         Let the instance make a whsec_ secret; printed this once
  --signature-header NAME   Header of the signature (default X-Service-Signature)
  --map FIELD=KEY           Send field FIELD under KEY, and only mapped fields; repeat for
                            more (edit: replaces all of them)
  --events LIST             Which events fire: comma-separated create,update,delete, or
                            "none" (default create,update)
  --standard-webhooks       Also send webhook-id, webhook-timestamp, webhook-signature
                            (needs a whsec_ secret)
  --concurrency N           Requests in flight at once to this webhook, 1 to 64 (default:
                            the instance's webhooks.concurrency_per_webhook)
Edit only:
  --no-bearer, --no-secret, --no-headers, --no-mappings, --no-standard-webhooks
                            Remove that setting
  --no-concurrency          Back to the instance's concurrency_per_webhook
`;

const HELP: Record<string, string> = {
  webhook: `Usage: sealpost webhook <command> [options]

  webhook add --form FORMID TARGET_URL [settings]
                          Add a webhook configuration to a form
  webhook list --form FORMID
                          The form's webhooks, one a line (flagged ones say why)
  webhook show ID         A configuration (secrets masked), its failure flag and its failed
                          deliveries
  webhook edit ID [settings]
                          Change the settings given; clears the failure flag
  webhook remove ID       Remove a configuration and its deliveries
  webhook test ID [--values FILE]
                          Send one request now with sample values, or the JSON object of
                          field values in FILE ("-": stdin); nothing is stored or retried.
                          Exit 1 when the receiver did not accept it
${SETTINGS_HELP}`,
  deliveries: `Usage: sealpost deliveries <command> [options]

  deliveries list --webhook ID [--failed] [--limit N] [--cursor CURSOR]
                          Newest first, one a line: id, record, event, status, attempts,
                          last HTTP status and error. --limit 1 to 500 (default 50); when
                          there are more, the next page's --cursor is printed on stderr
  deliveries show DELIVERYID
                          A delivery and each attempt: time, status, duration, error,
                          response snippet
  deliveries retry DELIVERYID
                          Send one delivery again now (a delivered one too)
  deliveries retry --webhook ID --failed
                          Send every failed delivery of a webhook again now
`,
};

/** The one positional argument `what` (and no other). */
function single(args: string[], what: string): string {
  if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}"`);
  return encodeURIComponent(need(args[0], what));
}

async function webhookRun(
  client: SealpostClient,
  command: string,
  args: string[],
  flags: Flags,
): Promise<number> {
  const hook = (what = "ID") => `/owner/webhooks/${single(args, what)}`;
  switch (command) {
    case "add": {
      const form = encodeURIComponent(need(flags.form, "--form FORMID"));
      if (args.length > 1) throw new UsageError(`Unexpected argument "${args[1]}"`);
      if (args[0] !== undefined && flags.target !== undefined) {
        throw new UsageError("Give the target URL once: TARGET_URL or --target");
      }
      const target = need(
        args[0] ?? flags.target,
        "TARGET_URL (or --target URL; --url is the instance's URL)",
      );
      const body = { ...await settingsBody(flags), url: target };
      const created = await client.call<Webhook>("POST", `/owner/forms/${form}/webhooks`, body);
      print(flags, created, () => webhookText(created));
      return 0;
    }
    case "list": {
      if (args.length) throw new UsageError(`Unexpected argument "${args[0]}"`);
      const form = encodeURIComponent(need(flags.form, "--form FORMID"));
      const { items } = await client.call<{ items: Webhook[] }>(
        "GET",
        `/owner/forms/${form}/webhooks`,
      );
      print(flags, items, () => items.map(webhookLine).join("\n") || "No webhooks");
      return 0;
    }
    case "show": {
      const path = hook();
      const webhook = await client.call<Webhook>("GET", path);
      const failed = await client.call<Page>("GET", `${path}/deliveries?failed=true&limit=20`);
      print(flags, { ...webhook, failedDeliveries: failed.items }, () => {
        const lines = failed.items.map((d) => `  ${deliveryLine(d)}`);
        if (failed.nextCursor) {
          lines.push(
            `  … more: ${programCommand()} deliveries list --webhook ${webhook.id} --failed`,
          );
        }
        return `${webhookText(webhook)}\nfailed deliveries:${
          lines.length ? `\n${lines.join("\n")}` : " none"
        }`;
      });
      return 0;
    }
    case "edit": {
      const path = hook();
      const body = await settingsBody(flags);
      if (Object.keys(body).length === 0) {
        throw new UsageError("Nothing to change: give at least one setting");
      }
      const edited = await client.call<Webhook>("PATCH", path, body);
      print(flags, edited, () => webhookText(edited));
      return 0;
    }
    case "remove": {
      const id = args[0];
      await client.call("DELETE", hook());
      print(flags, { removed: id }, () => `Removed ${id}`);
      return 0;
    }
    case "test": {
      const path = `${hook()}/test`;
      const values = flags.values === undefined ? undefined : await readValues(flags.values);
      const result = await client.call<TestResult>(
        "POST",
        path,
        values === undefined ? undefined : { values },
      );
      print(flags, result, () => testText(result));
      return result.outcome === "delivered" ? 0 : 1;
    }
  }
  throw new UsageError(`Unknown command "webhook ${command}"`);
}

async function deliveriesRun(
  client: SealpostClient,
  command: string,
  args: string[],
  flags: Flags,
): Promise<number> {
  const webhook = () =>
    `/owner/webhooks/${encodeURIComponent(need(flags.webhook, "--webhook ID"))}`;
  switch (command) {
    case "list": {
      if (args.length) throw new UsageError(`Unexpected argument "${args[0]}"`);
      const query = new URLSearchParams({ limit: String(parseLimit(flags.limit, 50, 500)) });
      if (flags.failed) query.set("failed", "true");
      if (flags.cursor) query.set("cursor", flags.cursor);
      const page = await client.call<Page>("GET", `${webhook()}/deliveries?${query}`);
      print(flags, page, () => page.items.map(deliveryLine).join("\n") || "No deliveries");
      if (page.nextCursor && !flags.json) {
        console.error(`more: --cursor ${page.nextCursor}`);
      }
      return 0;
    }
    case "show": {
      const found = await client.call<{ delivery: Delivery; attempts: Attempt[] }>(
        "GET",
        `/owner/deliveries/${single(args, "DELIVERYID")}`,
      );
      print(flags, found, () => {
        const d = found.delivery;
        const lines = [deliveryLine(d), `  webhook ${d.webhookId}, created ${d.createdAt}`];
        if (d.nextAttemptAt) lines.push(`  next attempt ${d.nextAttemptAt}`);
        if (d.completedAt) lines.push(`  completed ${d.completedAt}`);
        lines.push(...found.attempts.map((a) => `  ${attemptLine(a)}`));
        if (found.attempts.length === 0) lines.push("  no attempts yet");
        return lines.join("\n");
      });
      return 0;
    }
    case "retry": {
      if (flags.webhook !== undefined) {
        if (args.length) throw new UsageError("Give DELIVERYID or --webhook ID --failed, not both");
        if (!flags.failed) {
          throw new UsageError("--webhook ID retries the failed deliveries: add --failed");
        }
        const { retried } = await client.call<{ retried: number }>(
          "POST",
          `${webhook()}/deliveries/retry`,
        );
        print(
          flags,
          { retried },
          () => `Re-queued ${retried} failed deliver${retried === 1 ? "y" : "ies"}`,
        );
        return 0;
      }
      if (flags.failed) throw new UsageError("--failed needs --webhook ID");
      const delivery = await client.call<Delivery>(
        "POST",
        `/owner/deliveries/${single(args, "DELIVERYID (or --webhook ID --failed)")}/retry`,
      );
      print(flags, delivery, () => `Re-queued ${delivery.id} (${delivery.status})`);
      return 0;
    }
  }
  throw new UsageError(`Unknown command "deliveries ${command}"`);
}

/**
 * Runs `sealpost <webhook|deliveries> ...`; resolves to the exit code.
 *
 * @example
 * ```ts
 * Deno.exit(await webhookCommand(["webhook", "list", "--form", "contact", "--json"]));
 * ```
 */
export function webhookCommand(args: string[]): Promise<number> {
  const group = args[0];
  return runOwnerGroup(args, HELP[group], OPTIONS, async (command, rest, flags) => {
    const allowed = COMMANDS[`${group} ${command}`];
    if (!allowed) throw new UsageError(`Unknown command "${group} ${command}"`);
    const stray = (Object.keys(flags) as Flag[]).find((name) =>
      !(name in OWNER_OPTIONS) && !allowed.includes(name)
    );
    if (stray) throw new UsageError(`--${stray} does not apply to "${group} ${command}"`);
    const client = await ownerClient(flags);
    return group === "webhook"
      ? await webhookRun(client, command, rest, flags)
      : await deliveriesRun(client, command, rest, flags);
  });
}
