import { AppError } from '@caravel/errors';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { quietConsoleLogger, type BusLogger } from '../settlement/index.js';
import { JetStreamBus } from './jetstream-bus.js';
import { Namespace } from './namespace.js';

export interface JetStreamBusOptions {
  /** e.g. `nats://127.0.0.1:4222` */
  url: string;
  /** Connection name shown by the server, and the `source` of records this bus writes. */
  name: string;
  /** Prefix for stream, consumer, subject and bucket names (test isolation). */
  namespace?: string;
  logger?: BusLogger;
}

const RECONNECT_WAIT_MS = 1_000;

async function connectOrExplain(url: string, name: string): Promise<NatsConnection> {
  try {
    return await connect({
      servers: url,
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: RECONNECT_WAIT_MS,
    });
  } catch (error) {
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `NATS is not reachable at ${url}: start it with \`nats-server -js\` (or set NATS_URL)`,
      { cause: error },
    );
  }
}

function logStatus(nc: NatsConnection, name: string, logger: BusLogger): void {
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') logger.warn(`${name}: lost NATS connection, reconnecting`);
      if (status.type === 'reconnect') logger.log(`${name}: reconnected to NATS`);
    }
  })().catch(() => undefined);
}

/**
 * Connects to NATS and returns a JetStream-backed bus. Reconnects forever after a lost
 * connection; durable consumers pick up where they were since acks are only sent after success.
 */
export async function connectJetStreamBus(options: JetStreamBusOptions): Promise<JetStreamBus> {
  const namespace = new Namespace(options.namespace);
  const logger = options.logger ?? quietConsoleLogger;
  const nc = await connectOrExplain(options.url, options.name);
  try {
    const jsm = await jetstreamManager(nc);
    logStatus(nc, options.name, logger);
    return new JetStreamBus({ nc, js: jetstream(nc), jsm, namespace, name: options.name, logger });
  } catch (error) {
    await nc.close();
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `NATS at ${options.url} has no JetStream: start it with \`nats-server -js\``,
      {
        cause: error,
      },
    );
  }
}
