/** The records port's contract on Deno KV (a fresh store in a temp dir per test). */
import { RecordEventAnnouncer } from "../../src/store/ports/record_events.ts";
import { vaultKvPorts } from "../../src/store/kv/vault_ports.ts";
import { tempKv } from "./_kv.ts";
import { recordsContract } from "./contract/records.ts";

recordsContract("Deno KV", async () => {
  const { kv, close } = await tempKv();
  // Two vault handles on one store share its announcements, as the store's own ports do.
  const announcer = new RecordEventAnnouncer();
  const ports = vaultKvPorts(kv, announcer);
  return {
    port: ports.records,
    other: vaultKvPorts(kv, announcer).records,
    quarantine: ports.quarantine,
    fileReleases: ports.fileReleases,
    onEvents: (listener) => ports.records.onEvents(listener),
    close,
  };
});
