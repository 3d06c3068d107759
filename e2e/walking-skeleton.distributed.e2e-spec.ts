import { connectJetStreamBus, type JetStreamBus } from '@caravel/messaging';
import { serviceGate, testEnvironment } from '@caravel/testing';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deleteJetStreamNamespace } from '../libs/messaging/src/jetstream/jetstream-bus.harness.js';
import { buildWorkspace, freePort, ServiceProcess } from './support/processes.js';
import { driveWalkingSkeleton, expectReady } from './support/walking-skeleton.js';

const SERVICES = [
  'ingress',
  'dispatch',
  'agent-runner',
  'reviewer',
  'analyzer',
  'sandbox-broker',
  'dashboard',
];

/** Each service's output, for a failure to explain itself (they log at warn and above). */
function logsOf(processes: readonly ServiceProcess[]): string {
  return processes.map((p) => `--- ${p.name}\n${p.log.slice(-4000)}`).join('\n');
}

const gate = await serviceGate(['nats', 'postgres']);

gate.describe(
  'walking skeleton, distributed (seven processes on NATS JetStream + PostgreSQL)',
  () => {
    const namespace = `e${randomBytes(4).toString('hex')}`;
    const database = `caravel_e2e_${namespace}`;
    const admin = new pg.Client({ connectionString: testEnvironment.TEST_DATABASE_URL });
    const processes: ServiceProcess[] = [];
    let bus: JetStreamBus | undefined;
    let sandboxRoot: string | undefined;

    beforeAll(async () => {
      buildWorkspace();
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(testEnvironment.TEST_DATABASE_URL);
      url.pathname = `/${database}`;
      sandboxRoot = await mkdtemp(join(tmpdir(), 'caravel-e2e-sandboxes-'));
      await chmod(sandboxRoot, 0o755);
      const env = {
        SANDBOX_ROOT: sandboxRoot,
        NATS_URL: testEnvironment.TEST_NATS_URL,
        DATABASE_URL: url.toString(),
        BUS_NAMESPACE: namespace,
        LOG_LEVEL: 'warn',
        SHUTDOWN_GRACE_MS: '10000',
      };
      for (const name of SERVICES) processes.push(new ServiceProcess(name, await freePort(), env));
    });

    afterAll(async () => {
      await bus?.close();
      await Promise.all(processes.map((p) => p.stop()));
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
      await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
      if (sandboxRoot) await rm(sandboxRoot, { recursive: true, force: true });
    });

    it('starts the seven services, each ready on its own port', async () => {
      for (const service of processes) {
        await expectReady(service.url).catch((error: unknown) => {
          throw new Error(`${service.name} never became ready: ${String(error)}\n${service.log}`);
        });
      }
    });

    it('takes a synthetic trigger across the processes to the dashboard', async () => {
      bus = await connectJetStreamBus({
        url: testEnvironment.TEST_NATS_URL,
        name: 'e2e',
        namespace,
      });
      const dashboard = processes.find((p) => p.name === 'dashboard');
      if (!dashboard) throw new Error('no dashboard process');
      await driveWalkingSkeleton(bus, dashboard.url).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${logsOf(processes)}`);
      });
    });

    it('drains and exits 0 on SIGTERM', async () => {
      const codes = await Promise.all(
        processes.map(async (p) => [p.name, await p.stop()] as const),
      );
      const exits = Object.fromEntries(codes);
      const clean = Object.fromEntries(SERVICES.map((s) => [s, 0]));
      if (JSON.stringify(exits) !== JSON.stringify(clean)) {
        throw new Error(`exit codes ${JSON.stringify(exits)}\n${logsOf(processes)}`);
      }
      expect(exits).toEqual(clean);
    });
  },
);
