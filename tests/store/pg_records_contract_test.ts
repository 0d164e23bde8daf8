/**
 * The records port's contract on PostgreSQL (a fresh schema per test): `other` is a second
 * pool on the same schema, as a second vault worker would be.
 */
import { onRecordEvents } from "../../src/events/record_event.ts";
import { vaultPgPorts } from "../../src/store/pg/vault_ports.ts";
import { freshPg } from "./contract/_pg.ts";
import { recordsContract } from "./contract/records.ts";

recordsContract("PostgreSQL", async () => {
  const pg = await freshPg();
  const second = pg.open();
  const ports = vaultPgPorts(pg.sql);
  return {
    port: ports.records,
    other: vaultPgPorts(second).records,
    quarantine: ports.quarantine,
    fileReleases: ports.fileReleases,
    onEvents: (listener) => {
      const stops = [pg.sql, second].map((sql) =>
        onRecordEvents(sql, (stored) => listener(stored.map((s) => s.event)))
      );
      return () => stops.forEach((stop) => stop());
    },
    close: pg.close,
  };
});
