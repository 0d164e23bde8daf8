/**
 * A vault on Deno KV in a temporary folder, with its first person (bootstrap made) and the
 * events its audit log stored: what the audit-site tests of the people services start from.
 */
import type { PersonPrincipal } from "../../src/auth/principals.ts";
import type { AuditEvent } from "../../src/audit/sink.ts";
import { bootstrapPeople } from "../../src/people/bootstrap.ts";
import { PersonTokens } from "../../src/people/tokens.ts";
import { createUser } from "../../src/relay/identity.ts";
import { FormDirectory } from "../../src/relay/manifests.ts";
import { openStore } from "../../src/store/kv/file.ts";
import { relayKvPorts } from "../../src/store/kv/relay_ports.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { LocalRelayLink, Vault, VaultKeys } from "../../src/vault/index.ts";

/** The vault, the events its log stored so far, its first person; `close` removes it all. */
export interface AuditedVault {
  vault: Vault;
  /** The API tokens of its people, at its relay too (what `peopleServices` ends tokens with). */
  tokens: PersonTokens;
  /** The events of the vault's audit log, oldest first, once every record is stored. */
  events(): Promise<AuditEvent[]>;
  first: PersonPrincipal;
  close(): Promise<void>;
}

/** Opens an {@link AuditedVault}. */
export async function auditedVault(): Promise<AuditedVault> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-audited-" });
  const kv = await openStore(dir);
  const relay = await relayKvPorts(kv, dir);
  const link = new LocalRelayLink(relay, new FormDirectory(relay), "http://127.0.0.1:9", null);
  const vault = new Vault(vaultKvPorts(kv), new VaultKeys(dir, null), link, {
    batchSize: 10,
    pollIntervalMs: 60_000,
  });
  const events = async () => {
    await vault.audit.idle();
    return (await vault.store.audit.list({ limit: 1000 })).map((entry) => entry.event);
  };
  const { user } = await createUser(relay.identity, "");
  const first = await bootstrapPeople({
    vault: vault.store,
    identity: relay.identity,
    first: { userId: user.id, ownerToken: "" },
    host: "audit.example",
  });
  const tokens = new PersonTokens({
    tokens: vault.store.personTokens,
    people: vault.store.people,
    facts: vault.store.vaultDatabases,
    relay: relay.identity,
    access: vault.access,
    audit: vault.audit,
  });
  return {
    tokens,
    vault,
    events,
    first,
    close: async () => {
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
