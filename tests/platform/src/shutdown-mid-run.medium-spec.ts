import { TriggerReceivedV1 } from '@caravel/contracts';
import { RunEventRepository, RunRepository } from '@caravel/db';
import { hostGit } from '@caravel/sandbox';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceHost } from '@caravel/platform';
import { afterAll, beforeAll, beforeEach, expect, it } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  describeEachPair,
  pairOf,
  pairStorage,
  type PairStorage,
  type PlatformPair,
} from './harness/platform-pairs.js';
import { scenarioOutcome, scenarioTrigger, startScenario, until } from './harness/scenario-run.js';
import { fakeOpenAiForFile } from './harness/suite-fixtures.js';

// A platform stopped while a run is in flight (a rolling deploy's SIGTERM, `caravel start`
// stopped): its close() must not wait for the run, the run must not be ended or lost, and the
// next platform on the same storage resumes it and finishes it once.

/**
 * The run's one command: counts its starts, waits for `.go` (which the test writes only once
 * another platform has started it again), then records that it ran to its end.
 */
const BLOCKING =
  'echo start >> .starts; until [ -e .go ]; do sleep 0.2; done; echo one >> calls.log';

/** How long close() may take before the test says it hung (a bound, not a measurement). */
const CLOSE_BOUND_MS = 60_000;
/**
 * How long a platform may take to start a run's command, or a second one to resume it (its
 * start on the same storage, the start command's redelivery, the checkpoint read): a CI dry run
 * under full load took more than the harness's default minute on the embedded pair.
 */
const COMMAND_WAIT_MS = 180_000;
/** Two platform starts, a bounded close and a run: more than Jest's default minute on a loaded machine. */
const SCENARIO_TIMEOUT_MS = 600_000;

// The provider outlives both platforms, as a real one does: the model call answered before the
// stop is not asked again (it is in the run's checkpoint), the next one gets the next reply.
const fake = fakeOpenAiForFile();
// Each test queues its own replies: one that failed midway must not answer the next one's run.
beforeEach(() => {
  fake().clear();
});

/** Resolves with `work`, or fails naming `what` once `ms` have passed. */
async function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} had not returned after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A repository served over git's dumb HTTP whose every request waits until {@link open}: a clone
 * that takes as long as the test wants. `held` resolves once the first request waits.
 */
class GatedRepository {
  readonly held: Promise<void>;
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));
  private constructor(
    private readonly server: Server,
    gitDir: string,
  ) {
    let seen!: () => void;
    this.held = new Promise((resolve) => (seen = resolve));
    server.on('request', (req, res) => {
      seen();
      void this.opened.then(async () => {
        const file = join(gitDir, (req.url ?? '/').split('?')[0] ?? '/');
        const body = await readFile(file).catch(() => null);
        res.writeHead(body ? 200 : 404).end(body ?? undefined);
      });
    });
  }

  static async serve(repository: string): Promise<GatedRepository> {
    await hostGit(repository, ['update-server-info']);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new GatedRepository(server, join(repository, '.git'));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  open(): void {
    this.release();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

await describeEachPair('a platform stopped mid-run', (kind) => {
  let storage: PairStorage;
  const hosts: ServiceHost[] = [];

  beforeAll(async () => {
    storage = await pairStorage(kind, {
      OPENAI_COMPATIBLE_BASE_URL: fake().baseUrl,
      RUN_INTERRUPT_POLL_MS: '3600000',
    });
  }, 60_000);

  afterAll(async () => {
    for (const host of hosts.splice(0)) await host.close().catch(() => undefined);
    await storage?.dispose();
  }, 120_000);

  async function startHost(): Promise<PlatformPair> {
    const host = await storage.start();
    hosts.push(host);
    return pairOf(kind, host, () => host.close());
  }

  it(
    'closes without waiting for the run, which the next platform resumes and finishes once',
    async () => {
      fake().enqueue(
        { toolCalls: [{ name: 'execute', args: { command: BLOCKING, timeout_seconds: 300 } }] },
        { toolCalls: [{ name: 'submit', args: {} }] },
      );
      const first = await startHost();
      const started = await startScenario(first, {
        prompt: 'wait for go',
        options: { model: 'openai-compatible:shutdown-model' },
      });
      const workspace = join(storage.sandboxRoot, started.threadId, 'workspace');
      const starts = async () =>
        (await readFile(join(workspace, '.starts'), 'utf8').catch(() => '')).split('\n').length - 1;
      await until(
        async () => ((await starts()) >= 1 ? true : undefined),
        'the command to start',
        COMMAND_WAIT_MS,
      );

      // Stopped while the command waits: close() returns with `.go` still unwritten.
      await within(first.close(), CLOSE_BOUND_MS, "the first platform's close()");
      hosts.splice(hosts.indexOf(first.host), 1);

      const second = await startHost();
      const runs = new RunRepository(second.database.db);
      const before = await runs.get(started.runId);
      expect(before).toMatchObject({ finishedAt: null, concludedAt: null });

      await until(
        async () => ((await starts()) >= 2 ? true : undefined),
        'the resumed command',
        COMMAND_WAIT_MS,
      );
      await writeFile(join(workspace, '.go'), 'go');
      const out = await scenarioOutcome(second, started);

      expect(out.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
      expect(await readFile(join(workspace, 'calls.log'), 'utf8')).toBe('one\n');
      const events = await new RunEventRepository(second.database.db).listByThread(
        started.threadId,
        {},
      );
      expect(events.filter((e) => e.type === 'evt.run.finished')).toHaveLength(1);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'closes while the repository is still being cloned, and the next platform runs the run',
    async () => {
      fake().enqueue(
        { toolCalls: [{ name: 'execute', args: { command: 'echo one >> calls.log' } }] },
        { toolCalls: [{ name: 'submit', args: {} }] },
      );
      const { trigger, started } = await scenarioTrigger({
        prompt: 'clone slowly',
        options: { model: 'openai-compatible:shutdown-model' },
      });
      const gate = await GatedRepository.serve(started.repository.path);
      try {
        const repository = { ...trigger.data.repository!, cloneUrl: gate.url };
        const first = await startHost();
        await first.bus.publish(TriggerReceivedV1, {
          ...trigger,
          data: { ...trigger.data, repository },
        });
        await gate.held;

        // The broker still clones (its git waits on the gate): close() does not wait for it.
        await within(first.close(), CLOSE_BOUND_MS, "the first platform's close()");
        hosts.splice(hosts.indexOf(first.host), 1);
        gate.open();

        const second = await startHost();
        const runs = new RunRepository(second.database.db);
        expect(await runs.get(started.runId)).toMatchObject({
          finishedAt: null,
          concludedAt: null,
        });
        const out = await scenarioOutcome(second, started);
        expect(out.run.status).toBe('completed');
        const workspace = join(storage.sandboxRoot, started.threadId, 'workspace');
        expect(await readFile(join(workspace, 'calls.log'), 'utf8')).toBe('one\n');
      } finally {
        gate.open();
        await gate.close();
      }
    },
    SCENARIO_TIMEOUT_MS,
  );
});
