import { announceRecordEvents, emitRecordEvent } from "../../src/events/record_event.ts";
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
  const port = webhookKvPorts(kv, queue);
  const listening = queue.start();
  return {
    port,
    emit: async (event) => {
      const w = new KvWrite();
      const stored = emitRecordEvent(w, event);
      if (!await w.commit(kv)) throw new Error("emit failed");
      announceRecordEvents(kv, [stored]);
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
