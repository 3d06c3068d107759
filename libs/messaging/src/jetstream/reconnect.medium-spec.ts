import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { STREAMS } from '@caravel/contracts';
import { testEnvironment } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { silentLogger, type BusLogger } from '../settlement/index.js';
import { probeMessage, uniqueName } from '../testing/bus-test-messages.js';
import { eventually } from '../testing/eventually.js';
import { connectJetStreamBus } from './connect-jetstream-bus.js';
import type { JetStreamBus } from './jetstream-bus.js';

const NATS_SERVER = [
  '/usr/sbin/nats-server',
  '/usr/bin/nats-server',
  '/usr/local/bin/nats-server',
].find(existsSync);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A private nats-server (own port, own store) that the test may kill and restart. */
class PrivateNats {
  private child: ChildProcess | undefined;
  constructor(
    private readonly binary: string,
    readonly port: number,
    private readonly storeDir: string,
  ) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  start(): void {
    this.child = spawn(
      this.binary,
      ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      {
        stdio: 'ignore',
      },
    );
  }

  /**
   * Stops the server the way an operator's restart does (SIGTERM: it flushes its store). A crash
   * (SIGKILL) is a different failure: without `sync_interval: always` (nats-server 2.10+) the
   * server can lose recent consumer acks and redeliver acked messages, which the handlers' inbox
   * dedupe absorbs — see docs/messaging.md.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

/** A bus logger that keeps every line, to assert on what an operator would read. */
class RecordingLogger implements BusLogger {
  readonly lines: string[] = [];
  log(message: string): void {
    this.lines.push(`log ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn ${message}`);
  }
  error(message: string): void {
    this.lines.push(`error ${message}`);
  }
  has(pattern: RegExp): boolean {
    return this.lines.some((line) => pattern.test(line));
  }
}

const describeWithServer = NATS_SERVER || testEnvironment.CI ? describe : describe.skip;
if (!NATS_SERVER)
  process.stdout.write('skipped: NATS reconnect: no nats-server binary on this machine\n');

describeWithServer('JetStream bus across a NATS restart', () => {
  let nats: PrivateNats;
  let storeDir: string;
  let bus: JetStreamBus | undefined;

  beforeAll(async () => {
    if (!NATS_SERVER)
      throw new Error('CI=true requires the nats-server binary (apt-get install nats-server)');
    storeDir = await mkdtemp(join(tmpdir(), 'caravel-nats-'));
    nats = new PrivateNats(NATS_SERVER, await freePort(), storeDir);
    nats.start();
    bus = await eventually(() =>
      connectJetStreamBus({ url: nats.url, name: 'reconnect', logger: silentLogger }),
    );
    await bus.ensureStreams(Object.values(STREAMS));
  });

  afterAll(async () => {
    await bus?.close();
    await nats.stop('SIGKILL');
    await rm(storeDir, { recursive: true, force: true });
  });

  it('reconnects, keeps its consumer, and never re-handles what was acked before the outage', async () => {
    const probe = probeMessage('cmd', 'reconnect');
    const handled: number[] = [];
    const threadId = randomUUID();
    await bus!.consume(
      probe,
      { durable: uniqueName('reconnect'), ackWaitMs: 2_000 },
      (delivery) => {
        handled.push(delivery.envelope.data.n);
        return Promise.resolve();
      },
    );
    for (let n = 0; n < 5; n += 1)
      await bus!.publish(probe, probe.create({ threadId, n }, { source: 'spec' }));
    await eventually(() => expect(handled).toHaveLength(5));

    await nats.stop();
    nats.start();

    // Publishing retries until the client has reconnected to the restarted server.
    for (let n = 5; n < 10; n += 1) {
      const envelope = probe.create({ threadId, n }, { source: 'spec' });
      await eventually(() => bus!.publish(probe, envelope), { timeoutMs: 30_000, intervalMs: 250 });
    }
    await eventually(
      () => expect([...handled].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      {
        timeoutMs: 30_000,
      },
    );
    expect(handled.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
  });

  it('logs the outage and the reconnection, and its consumers resume after the server is killed', async () => {
    const logger = new RecordingLogger();
    const watched = await connectJetStreamBus({ url: nats.url, name: 'watched', logger });
    try {
      const shared = probeMessage('cmd', 'killed-shared');
      const ordered = probeMessage('cmd', 'killed-ordered');
      const handled: string[] = [];
      const record = (label: string) => (delivery: { envelope: { data: { n: number } } }) => {
        handled.push(`${label}${delivery.envelope.data.n}`);
        return Promise.resolve();
      };
      // A killed 2.9 server may have lost the ack of what was handled just before: it redelivers
      // that after the ack wait, and an ordered partition waits for it, so keep the wait short.
      const ackWaitMs = 2_000;
      await watched.consume(shared, { durable: uniqueName('killed'), ackWaitMs }, record('s'));
      await watched.consume(
        ordered,
        { durable: uniqueName('killed-ordered'), ordered: true, ackWaitMs },
        record('o'),
      );
      const threadId = randomUUID();
      await watched.publish(shared, shared.create({ threadId, n: 0 }, { source: 'spec' }));
      await watched.publish(ordered, ordered.create({ threadId, n: 0 }, { source: 'spec' }));
      await eventually(() => expect([...handled].sort()).toEqual(['o0', 's0']));

      const server = `127.0.0.1:${nats.port}`;
      await nats.stop('SIGKILL');
      await eventually(() =>
        expect(
          logger.has(new RegExp(`^warn watched: lost the NATS connection to ${server}$`)),
        ).toBe(true),
      );
      await eventually(() =>
        expect(logger.has(/^warn watched: reconnecting to NATS \(attempt 1\)/)).toBe(true),
      );
      nats.start();
      await eventually(
        () =>
          expect(
            logger.has(
              new RegExp(
                `^log watched: reconnected to NATS at ${server} after \\d+ ms, \\d+ attempts`,
              ),
            ),
          ).toBe(true),
        { timeoutMs: 30_000 },
      );

      for (const [definition, n] of [
        [shared, 1],
        [ordered, 1],
      ] as const) {
        const envelope = definition.create({ threadId, n }, { source: 'spec' });
        await eventually(() => watched.publish(definition, envelope), {
          timeoutMs: 30_000,
          intervalMs: 250,
        });
      }
      await eventually(() => expect(handled).toEqual(expect.arrayContaining(['s1', 'o1'])), {
        timeoutMs: 30_000,
      });
    } finally {
      await watched.close();
    }
  });
});
