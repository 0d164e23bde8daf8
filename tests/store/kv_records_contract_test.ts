/** The records port's contract on Deno KV (a fresh store in a temp dir per test). */
import { onRecordEvents } from "../../src/events/record_event.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { tempKv } from "./_kv.ts";
import { recordsContract } from "./contract/records.ts";

recordsContract("Deno KV", async () => {
  const { kv, close } = await tempKv();
  const ports = vaultKvPorts(kv);
  return {
    port: ports.records,
    other: vaultKvPorts(kv).records,
    quarantine: ports.quarantine,
    fileReleases: ports.fileReleases,
    onEvents: (listener) => onRecordEvents(kv, (stored) => listener(stored.map((s) => s.event))),
    close,
  };
});
