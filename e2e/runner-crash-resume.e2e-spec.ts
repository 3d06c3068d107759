import { TriggerReceivedV1, runIdForTrigger } from '@caravel/contracts';
import { connectJetStreamBus, type JetStreamBus } from '@caravel/messaging';
import {
  serviceGate,
  startFakeOpenAi,
  testEnvironment,
  type FakeLlmServer,
} from '@caravel/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { deleteJetStreamNamespace } from '../libs/messaging/src/jetstream/jetstream-bus.harness.js';
import { CrashResumeScript, threadWorkspace } from './support/crash-resume.js';
import { buildWorkspace, freePort, ServiceProcess } from './support/processes.js';
import { eventually, expectReady, type RunView } from './support/walking-skeleton.js';

const gate = await serviceGate(['nats', 'postgres']);

const execute = (command: string) => ({ toolCalls: [{ name: 'execute', args: { command } }] });

gate.describe('a runner killed mid-run (kill -9)', () => {
  const namespace = `k${randomBytes(4).toString('hex')}`;
  const database = `caravel_e2e_${namespace}`;
  const admin = new pg.Client({ connectionString: testEnvironment.TEST_DATABASE_URL });
  const processes: ServiceProcess[] = [];
  let fake: FakeLlmServer;
  let bus: JetStreamBus | undefined;
  let sandboxRoot: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildWorkspace();
    fake = await startFakeOpenAi();
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(testEnvironment.TEST_DATABASE_URL);
    url.pathname = `/${database}`;
    sandboxRoot = await mkdtemp(join(tmpdir(), 'caravel-e2e-crash-'));
    await chmod(sandboxRoot, 0o755);
    env = {
      NATS_URL: testEnvironment.TEST_NATS_URL,
      DATABASE_URL: url.toString(),
      BUS_NAMESPACE: namespace,
      LOG_LEVEL: 'info',
      SANDBOX_ROOT: sandboxRoot,
      CARAVEL_MODEL: 'openai-compatible:crash-test-model',
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    };
    for (const name of ['dispatch', 'dashboard', 'sandbox-broker', 'agent-runner']) {
      processes.push(new ServiceProcess(name, await freePort(), env));
    }
    for (const p of processes) {
      await expectReady(p.url).catch((error: unknown) => {
        throw new Error(`${p.name} never became ready: ${String(error)}\n${p.log}`);
      });
    }
    bus = await connectJetStreamBus({ url: testEnvironment.TEST_NATS_URL, name: 'e2e', namespace });
  });

  afterAll(async () => {
    await bus?.close();
    await Promise.all(processes.map((p) => p.stop()));
    await fake.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    await deleteJetStreamNamespace(testEnvironment.TEST_NATS_URL, namespace);
    await rm(sandboxRoot, { recursive: true, force: true });
  });

  it('is resumed by another runner with no completed model or tool call repeated', async () => {
    const script = new CrashResumeScript(fake);
    const trigger = TriggerReceivedV1.create(
      {
        threadId: randomUUID(),
        source: 'synthetic',
        deliveryId: `crash-${randomUUID()}`,
        author: { externalId: 'e2e' },
        text: 'write three lines, slowly',
        trusted: true,
      },
      { source: 'e2e' },
    );
    await bus!.publish(TriggerReceivedV1, trigger);

    // Kill the runner while the second command (the slow one) runs: by then the model call that
    // asked for it has completed and is checkpointed.
    const workspace = threadWorkspace(sandboxRoot, trigger.data.threadId);
    await script.slowCommandRunning(workspace, () =>
      processes.map((p) => `--- ${p.name}\n${p.log}`).join('\n'),
    );
    const first = processes.find((p) => p.name === 'agent-runner')!;
    expect(await first.kill()).not.toBe(0);
    // The provider restarts too and numbers its ids from 1 again: the resumed run's answers come
    // under the ids of the answers before the crash (keyed on Caravel's own, nothing is lost).
    await fake.restart();
    const second = new ServiceProcess('agent-runner', await freePort(), env);
    processes.push(second);

    const dashboard = processes.find((p) => p.name === 'dashboard')!;
    const runId = runIdForTrigger(trigger.id);
    const logs = () => processes.map((p) => `--- ${p.name}\n${p.log}`).join('\n');
    const ended = new AbortController();
    const resumed = script.finishSlowCommandOnResume(workspace, logs, ended.signal);
    const run = await eventually(async () => {
      const response = await fetch(`${dashboard.url}/api/runs?limit=50`);
      const runs = (await response.json()) as RunView[];
      return runs.find((r) => r.id === runId && r.status !== 'queued' && r.status !== 'running');
    }, 150_000).finally(() => ended.abort());
    await resumed;
    expect({ ...run, logs: run.status === 'completed' ? '' : logs() }).toMatchObject({
      status: 'completed',
      exitStatus: 'submitted',
      logs: '',
    });
    await script.expectNothingRepeated(
      workspace,
      async () =>
        (await fetch(`${dashboard.url}/api/threads/${trigger.data.threadId}/events`)).json(),
      logs,
    );
  });

  it('injects a follow-up for the busy thread into the active run before its next model call', async () => {
    // The first command holds the run until the follow-up has joined it (the test then writes
    // `go`): an event, not a few seconds a loaded machine may not keep.
    fake.enqueue(
      execute('touch busy.started; until [ -e go ]; do sleep 0.2; done; echo one >> calls.log'),
      execute('echo two >> calls.log'),
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const threadId = randomUUID();
    const trigger = (text: string) =>
      TriggerReceivedV1.create(
        {
          threadId,
          source: 'synthetic',
          deliveryId: `follow-${randomUUID()}`,
          author: { externalId: 'e2e' },
          text,
          trusted: true,
        },
        { source: 'e2e' },
      );
    const first = trigger('write one');
    const requestsBefore = fake.requests.length;
    await bus!.publish(TriggerReceivedV1, first);
    const workspace = join(sandboxRoot, threadId, 'workspace');
    await eventually(async () =>
      (await stat(join(workspace, 'busy.started')).catch(() => null)) ? true : undefined,
    );
    const followUp = trigger('also write two');
    await bus!.publish(TriggerReceivedV1, followUp);

    // Dispatch queues the follow-up for the active run, then marks its own run merged.
    const dashboard = processes.find((p) => p.name === 'dashboard')!;
    await eventually(async () => {
      const response = await fetch(`${dashboard.url}/api/threads/${threadId}`);
      const body = (await response.json()) as { runs: RunView[] };
      const joined = body.runs.find((r) => r.id === runIdForTrigger(followUp.id));
      return joined?.status === 'merged' ? true : undefined;
    }, 120_000);
    await writeFile(join(workspace, 'go'), '');
    const detail = await eventually(async () => {
      const response = await fetch(`${dashboard.url}/api/threads/${threadId}`);
      const body = (await response.json()) as { runs: RunView[] };
      const main = body.runs.find((r) => r.id === runIdForTrigger(first.id));
      return main && main.status !== 'queued' && main.status !== 'running' ? body : undefined;
    }, 120_000);
    const byId = Object.fromEntries(detail.runs.map((r) => [r.id, r.status]));
    expect(byId).toEqual({
      [runIdForTrigger(first.id)]: 'completed',
      [runIdForTrigger(followUp.id)]: 'merged',
    });
    // The second model call saw the follow-up as a user message; the first did not.
    const bodies = fake.requests.slice(requestsBefore).map((r) => JSON.stringify(r.body));
    expect(bodies).toHaveLength(3);
    expect(bodies[0]).not.toContain('also write two');
    expect(bodies[1]).toContain('also write two');
    expect(await readFile(join(workspace, 'calls.log'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a runner stopped with SIGTERM mid-command exits 0 within its grace, its run left running, and the next runner resumes it', async () => {
    // A rolling deploy: the live runner gets SIGTERM while the run's command waits for `go`.
    fake.enqueue(
      execute(
        'echo start >> starts.log; until [ -e go ]; do sleep 0.2; done; echo one >> calls.log',
      ),
      { toolCalls: [{ name: 'submit', args: {} }] },
    );
    const threadId = randomUUID();
    const trigger = TriggerReceivedV1.create(
      {
        threadId,
        source: 'synthetic',
        deliveryId: `term-${randomUUID()}`,
        author: { externalId: 'e2e' },
        text: 'wait for go',
        trusted: true,
      },
      { source: 'e2e' },
    );
    await bus!.publish(TriggerReceivedV1, trigger);
    const workspace = threadWorkspace(sandboxRoot, threadId);
    const starts = async () =>
      (await readFile(join(workspace, 'starts.log'), 'utf8').catch(() => '')).split('\n').length -
      1;
    await eventually(async () => ((await starts()) >= 1 ? true : undefined));
    const runners = processes.filter((p) => p.name === 'agent-runner');
    const live = runners.at(-1)!;

    // Exit 0 means it drained within SHUTDOWN_GRACE_MS; the run is not ended (it is handed back).
    expect(await live.stop(30_000)).toBe(0);
    expect(live.log).not.toContain('not drained within');
    const dashboard = processes.find((p) => p.name === 'dashboard')!;
    const runId = runIdForTrigger(trigger.id);
    const running = (await (await fetch(`${dashboard.url}/api/runs?limit=50`)).json()) as RunView[];
    expect(running.find((r) => r.id === runId)?.status).toBe('running');

    const next = new ServiceProcess('agent-runner', await freePort(), env);
    processes.push(next);
    await eventually(async () => ((await starts()) >= 2 ? true : undefined), 150_000);
    await writeFile(join(workspace, 'go'), '');
    const run = await eventually(async () => {
      const response = await fetch(`${dashboard.url}/api/runs?limit=50`);
      const runs = (await response.json()) as RunView[];
      return runs.find((r) => r.id === runId && r.status !== 'queued' && r.status !== 'running');
    }, 150_000);
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(await readFile(join(workspace, 'calls.log'), 'utf8')).toBe('one\n');
  });
});
