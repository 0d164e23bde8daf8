/**
 * Shared setup of the ingest benches (bench/ingest.ts, bench/ingest_flat.ts): a role-all
 * Sealpost in one data dir (relay ports, intake, the vault with its in-process relay link), a
 * database and a published form, and a sender queueing sealed 1 KiB submissions through
 * intake as the relay's POST does.
 */
import { NEED } from "../src/people/access.ts";
import { bootstrapPeople } from "../src/people/bootstrap.ts";
import { createUser } from "../src/relay/identity.ts";
import { EditTokens } from "../src/auth/index.ts";
import { FormDirectory } from "../src/relay/manifests.ts";
import { Intake } from "../src/relay/submissions.ts";
import { buildEnvelope, buildPayload, seal } from "../src/sdk/mod.ts";
import { openStore } from "../src/store/kv/file.ts";
import { relayKvPorts } from "../src/store/kv/relay_ports.ts";
import { vaultKvPorts } from "../src/store/kv/vault_ports.ts";
import { LocalRelayLink, Vault, VaultKeys } from "../src/vault/index.ts";

/** The values every bench submission carries (about 1 KiB of ciphertext sealed). */
export const benchValues = (n: number) => ({
  name: `sender ${n}`,
  email: "someone@example.com",
  message: "x".repeat(880),
  rating: 4,
});

/** Opens a role-all Sealpost in a fresh temp dir with one database and a published form. */
export async function openIngestBench() {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-bench-ingest-" });
  const kv = await openStore(dir);
  const relay = await relayKvPorts(kv, dir);
  const forms = new FormDirectory(relay);
  const intake = new Intake(relay.envelopes, forms, new EditTokens(new Uint8Array(32)), {
    maxCiphertextBytes: 1024 * 1024,
    editWindowMs: 3600_000,
  });
  const link = new LocalRelayLink(relay, forms, "http://127.0.0.1:8080", null);
  const vault = new Vault(vaultKvPorts(kv), new VaultKeys(dir, null), link, {
    batchSize: 500,
    pollIntervalMs: 1000,
  });
  const { user } = await createUser(relay.identity, "bench");
  const first = await bootstrapPeople({
    vault: vault.store,
    identity: relay.identity,
    first: { userId: user.id, ownerToken: "" },
    host: "bench.example",
  });
  const gate = vault.access.gate(first, NEED.forms);
  const db = await vault.createDatabase(first, "bench");
  const form = await vault.createForm(gate, {
    databaseId: db.id,
    title: "Bench",
    fields: [
      { id: "name", label: "Name", kind: "text", required: true },
      { id: "email", label: "Email", kind: "email" },
      { id: "message", label: "Message", kind: "richText" },
      { id: "rating", label: "Rating", kind: "number" },
    ],
  });
  const { manifest } = await vault.publish(gate, form.formId);
  let sent = 0;

  /** Seals and submits `count` submissions, 100 at a time; answers their ciphertexts. */
  const queue = async (count: number): Promise<Uint8Array[]> => {
    const ciphertexts: Uint8Array[] = [];
    for (let start = 0; start < count; start += 100) {
      await Promise.all(Array.from({ length: Math.min(100, count - start) }, async () => {
        const sealed = await seal(
          buildPayload(manifest, benchValues(sent++)),
          manifest.recipient.publicKey,
        );
        ciphertexts.push(Uint8Array.fromBase64(sealed));
        await intake.submit(buildEnvelope(manifest, sealed));
      }));
    }
    return ciphertexts;
  };

  const close = async () => {
    await relay.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  };
  return { dir, kv, relay, vault, db, form, manifest, queue, close };
}
