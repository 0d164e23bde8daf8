import { RecordEventAnnouncer } from "../../src/store/ports/record_events.ts";
import { emitRecordEvent } from "../../src/store/kv/record_events.ts";
import { webhookKvPorts } from "../../src/store/kv/webhook_ports.ts";
import { QueueDispatcher } from "../../src/store/kv/queue.ts";
import { KvWrite } from "../../src/store/kv/write.ts";
import { recordEventsContract } from "./contract/record_events.ts";
import { webhooksContract, type WebhooksFixture } from "./contract/webhooks.ts";

/** The webhook ports on a fresh Deno KV file, its queue listening. */
async function kvFixture(): Promise<WebhooksFixture> {
  const dir = await Deno.makeTempDir({ prefix: "sealpost-webhooks-contract-" });
  const kv = await Deno.openKv(`${dir}/store.kv`);
  const queue = new QueueDispatcher(kv);
  const announcer = new RecordEventAnnouncer();
  const port = webhookKvPorts(kv, queue, announcer);
  const listening = queue.start();
  return {
    port,
    emit: async (event) => {
      const w = new KvWrite();
      const stored = emitRecordEvent(w, event);
      if (!await w.commit(kv)) throw new Error("emit failed");
      announcer.announce([stored]);
      return stored;
    },
    close: async () => {
      await port.deliveries.idle();
      kv.close();
      await listening;
      await Deno.remove(dir, { recursive: true });
    },
  };
}

webhooksContract("kv", kvFixture);
recordEventsContract("kv", kvFixture);
