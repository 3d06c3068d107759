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
      // Without it every request and JetStream publish builds two errors with stack traces up
      // front, in case it fails (5.7% of the ingress under its peak); a failure here is turned
      // into an AppError naming the subject anyway.
      noAsyncTraces: true,
    });
  } catch (error) {
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `NATS is not reachable at ${url}: start it with \`nats-server -js\` (or set NATS_URL)`,
      { cause: error },
    );
  }
}

/** A reconnect attempt is logged once per this many, so a long outage does not flood the log. */
const RECONNECTING_LOG_EVERY = 30;

/**
 * Logs the connection's life through the bus logger: the disconnect (warn), the first reconnect
 * attempt and every 30th after it (warn), and the reconnection with the server and the outage's
 * length (log).
 */
function logStatus(nc: NatsConnection, name: string, logger: BusLogger): void {
  let attempts = 0;
  let lostAt = 0;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        attempts = 0;
        lostAt = Date.now();
        logger.warn(`${name}: lost the NATS connection to ${status.server}`);
      } else if (status.type === 'reconnecting') {
        attempts += 1;
        if (attempts % RECONNECTING_LOG_EVERY === 1) {
          logger.warn(`${name}: reconnecting to NATS (attempt ${attempts})`);
        }
      } else if (status.type === 'reconnect') {
        const outage = `${Date.now() - lostAt} ms, ${attempts} attempts`;
        logger.log(`${name}: reconnected to NATS at ${status.server} after ${outage}`);
      }
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
