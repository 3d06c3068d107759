import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectJetStreamBus, silentLogger, type Bus } from '@caravel/messaging';
import { SandboxBrokerClient } from '@caravel/sandbox';
import { seedRemote } from '@caravel/sandbox/testing';
import {
  createTestPostgresDatabase,
  serviceGate,
  testEnvironment,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { dropNamespace, waitUntil } from './testing/broker-harness.js';
import { BrokerProcess } from './testing/broker-process.js';

const namespace = `bk${randomBytes(4).toString('hex')}`;
const gate = await serviceGate(['nats', 'postgres']);

/** Far longer than the tests may take: a call failing before it is the watch's doing. */
const COMMAND_TIMEOUT_MS = 600_000;
/** A test's budget: the watch's 18 s, a broker's start from sources, and slack for a busy host. */
const TEST_TIMEOUT_MS = 150_000;

/** What the caller must see once the broker working on its call was killed. */
const brokerGone = {
  code: 'DEPENDENCY_UNAVAILABLE',
  retryable: true,
  details: { reason: 'broker_gone' },
};

gate.describe('a sandbox broker process killed mid-call (NATS + PostgreSQL)', () => {
  let workDir: string;
  let remote: string;
  /** Created by the test once done: the held command and the remote's hook then end. */
  let release: string;
  let database: TestPostgresDatabase;
  let bus: Bus;
  let client: SandboxBrokerClient;
  const brokers: BrokerProcess[] = [];

  const startBroker = async () => {
    const broker = await BrokerProcess.start({
      NATS_URL: testEnvironment.TEST_NATS_URL,
      DATABASE_URL: database.url,
      BUS_NAMESPACE: namespace,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      SANDBOX_PROVIDER: 'local',
      SANDBOX_ROOT: join(workDir, 'sandboxes'),
    });
    brokers.push(broker);
    return broker;
  };
  const repository = () => ({ owner: 'acme', name: 'widgets', cloneUrl: remote });

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'caravel-broker-killed-'));
    release = join(workDir, 'release');
    remote = await seedRemote(workDir);
    // From now on the remote holds up every push (then refuses it) until the test releases it.
    const hook = join(remote, 'hooks', 'pre-receive');
    await writeFile(
      hook,
      `#!/bin/sh\ntouch ${join(workDir, 'push-received')}\n` +
        `while [ ! -f ${release} ]; do sleep 1; done\nexit 1\n`,
    );
    await chmod(hook, 0o755);
    database = await createTestPostgresDatabase();
    bus = await connectJetStreamBus({
      url: testEnvironment.TEST_NATS_URL,
      name: 'runner',
      namespace,
      logger: silentLogger,
    });
    client = await SandboxBrokerClient.open(bus);
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    if (workDir) await writeFile(release, '');
    for (const broker of brokers) broker.endGroup();
    await client?.close();
    await bus?.close();
    await database?.drop();
    await dropNamespace(namespace);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it(
    "fails a running command broker_gone once its broker is killed, long before the command's timeout",
    async () => {
      const broker = await startBroker();
      const threadId = randomUUID();
      const sandbox = await client.acquire({ threadId, branch: 'caravel/k1' });
      const started = join(workDir, 'command-started');
      const probesBefore = client.calls.probesHeard;
      const running = sandbox.exec(
        `touch ${started}; while [ ! -f ${release} ]; do sleep 1; done`,
        { timeoutMs: COMMAND_TIMEOUT_MS },
      );
      // Settled by the test's end either way; a rejection is not left unhandled meanwhile.
      running.catch(() => undefined);
      await waitUntil('the command to run', () => existsSync(started));
      await waitUntil('a probe naming the command', () => client.calls.probesHeard > probesBefore);
      await broker.kill();
      await expect(running).rejects.toMatchObject(brokerGone);
      expect(client.calls.size).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'fails a push held up by the remote broker_gone once its broker is killed',
    async () => {
      const broker = await startBroker();
      const threadId = randomUUID();
      const sandbox = await client.acquire({
        threadId,
        branch: 'caravel/k2',
        repository: repository(),
      });
      await sandbox.writeFile('work.txt', 'done\n');
      const probesBefore = client.calls.probesHeard;
      const pushing = client.push({
        threadId,
        branch: 'caravel/k2',
        repository: repository(),
        commitMessage: 'the work',
      });
      pushing.catch(() => undefined);
      await waitUntil('the remote to receive the push', () =>
        existsSync(join(workDir, 'push-received')),
      );
      await waitUntil('a probe naming the push', () => client.calls.probesHeard > probesBefore);
      await broker.kill();
      await expect(pushing).rejects.toMatchObject(brokerGone);
      await expect(pushing).rejects.toThrow(/this push stopped answering/);
      expect(client.calls.size).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'sends an acquire again soon after the broker setting the sandbox up is killed, and another broker answers it',
    async () => {
      const broker = await startBroker();
      const threadId = randomUUID();
      // The test holds the thread's lock: the broker waits for it, probing the caller meanwhile.
      const held = await bus.leases.acquire(`sandbox.${threadId}`, 'test', 60_000);
      if (!held) throw new Error("the test could not take the thread's lock");
      const probesBefore = client.calls.probesHeard;
      const acquiring = client.acquire({ threadId, branch: 'caravel/k3' });
      acquiring.catch(() => undefined);
      await waitUntil('a probe naming the acquire', () => client.calls.probesHeard > probesBefore);
      await broker.kill();
      await startBroker();
      await bus.leases.release(held);
      // Unwatched, the acquire's first attempt would wait out 150 s: past this test's budget.
      const sandbox = await acquiring;
      expect(sandbox.handle.threadId).toBe(threadId);
      expect(client.calls.size).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
