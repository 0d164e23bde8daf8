/**
 * The records port's contract on PostgreSQL (a fresh schema per test): `other` is a second
 * pool on the same schema, as a second vault worker would be.
 */
import { vaultPgPorts } from "../../src/store/pg/vault_ports.ts";
import { freshPg } from "./contract/_pg.ts";
import { recordsContract } from "./contract/records.ts";

recordsContract("PostgreSQL", async () => {
  const pg = await freshPg();
  const second = pg.open();
  const ports = vaultPgPorts(pg.sql);
  const other = vaultPgPorts(second).records;
  return {
    port: ports.records,
    other,
    quarantine: ports.quarantine,
    fileReleases: ports.fileReleases,
    onEvents: (listener) => {
      const stops = [ports.records, other].map((records) => records.onEvents(listener));
      return () => stops.forEach((stop) => stop());
    },
    close: pg.close,
  };
});
