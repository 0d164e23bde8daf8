/**
 * A vault on Deno KV in a temporary folder whose audit sink keeps every event, with its first
 * person (bootstrap made): what the audit-site tests of the vault and of the people services
 * start from.
 */
import type { PersonPrincipal } from "../../src/auth/principals.ts";
import type { AuditEvent } from "../../src/audit/sink.ts";
import { bootstrapPeople } from "../../src/people/bootstrap.ts";
import { createUser } from "../../src/relay/identity.ts";
import { FormDirectory } from "../../src/relay/manifests.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { relayKvPorts } from "../../src/store/kv/relay_ports.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { LocalRelayLink, Vault, VaultKeys } from "../../src/vault/index.ts";

/** The vault, the events its actions reported, its first person; `close` removes it all. */
export interface AuditedVault {
  vault: Vault;
  events: AuditEvent[];
  first: PersonPrincipal;
  close(): Promise<void>;
}

/** Opens an {@link AuditedVault}. */
export async function auditedVault(): Promise<AuditedVault> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-audited-" });
  const kv = await openStore(dir);
  const relay = await relayKvPorts(kv, dir);
  const link = new LocalRelayLink(relay, new FormDirectory(relay), "http://127.0.0.1:9", null);
  const events: AuditEvent[] = [];
  const vault = new Vault(vaultKvPorts(kv), new VaultKeys(dir, null), link, {
    batchSize: 10,
    pollIntervalMs: 60_000,
    audit: { record: (event) => events.push(event) },
  });
  const { user } = await createUser(relay.identity, "");
  const first = await bootstrapPeople({
    vault: vault.store,
    identity: relay.identity,
    first: { userId: user.id, ownerToken: "" },
    host: "audit.example",
  });
  return {
    vault,
    events,
    first,
    close: async () => {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
