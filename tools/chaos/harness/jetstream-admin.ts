import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { eventually } from '../../../e2e/support/walking-skeleton.js';

/** What the chaos suite does to the run's own nats-server as its operator. */
export class JetStreamAdmin {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
    private readonly namespace: string,
  ) {}

  static async open(url: string, namespace: string): Promise<JetStreamAdmin> {
    const nc = await connect({ servers: url, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    return new JetStreamAdmin(nc, await jetstreamManager(nc), namespace);
  }

  /**
   * Sets every stream of the namespace to a `ms` duplicate window. Caravel has no setting for it
   * (2 minutes, `libs/messaging/src/jetstream/stream-setup.ts`); a service that starts again puts
   * it back.
   */
  async setDuplicateWindow(ms: number): Promise<void> {
    for await (const name of this.jsm.streams.names()) {
      if (!name.startsWith(`${this.namespace}_CARAVEL_`)) continue;
      const { config } = await this.jsm.streams.info(name);
      await this.jsm.streams.update(name, { ...config, duplicate_window: nanos(ms) });
    }
  }

  /** Waits until no consumer of the namespace whose durable starts with `durable` has work left. */
  async awaitIdle(stream: string, durable: string, timeoutMs: number): Promise<void> {
    const prefix = `${this.namespace}_${durable}`;
    await eventually(async () => {
      for await (const info of this.jsm.consumers.list(`${this.namespace}_${stream}`)) {
        if (!info.name.startsWith(prefix)) continue;
        if (info.num_pending > 0 || info.num_ack_pending > 0) return undefined;
      }
      return true;
    }, timeoutMs);
  }

  /** Stores `payload` on `subject` (the namespace's) with `msgId`, as any publisher could. */
  async publishRaw(
    subject: string,
    payload: Uint8Array | string,
    msgId: string,
  ): Promise<{ sequence: number; duplicate: boolean }> {
    const ack = await jetstream(this.nc).publish(`${this.namespace}.${subject}`, payload, {
      msgID: msgId,
    });
    return { sequence: ack.seq, duplicate: ack.duplicate };
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}
