import type { ReplayStepOutcome } from '@caravel/agent';
import {
  ReplayFinishedV1,
  ReplayRunV1,
  ReplayStartedV1,
  ReplayStepV1,
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  type MessageDefinition,
} from '@caravel/contracts';
import type { RunEventRepository, RunEventRow, RunRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import type { Bus, Lease, LeaseStore, MessagePublisher, PublishAck } from '@caravel/messaging';
import type { PlatformRuntime } from '@caravel/platform';
import type { Sandbox, ToolSandboxAdapter } from '@caravel/sandbox';
import type { ToolSandbox } from '@caravel/tools';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import type { ThreadSandboxService } from '../sandbox/thread-sandbox.service.js';
import { LeaseKeeper } from '../services/lease-keeper.js';
import { outcomeOf } from './replay-events.js';
import { replayLeaseKey, ReplayService } from './replay.service.js';

const REQUEST = ReplayRunV1.fixture();
const { threadId: THREAD, runId: RUN, replayId: REPLAY } = REQUEST.data;
const BASE = 'a'.repeat(40);

const row = (definition: MessageDefinition, data: Record<string, unknown>, sequence: number) =>
  factory.runEvent(definition, { threadId: THREAD, runId: RUN, ...data }, { sequence });

/** A recorded step: one `execute` call and what it answered. */
const stepRow = (step: number, command: string, content: string, sequence: number) =>
  row(
    RunStepV1,
    {
      step,
      toolCalls: [{ id: `c${step}`, name: 'execute', args: { command } }],
      results: [{ toolCallId: `c${step}`, name: 'execute', content, status: 'success' }],
    },
    sequence,
  );

const finishedRow = (sequence: number) =>
  row(RunFinishedV1, { outcome: 'completed', exitStatus: 'submitted', summary: 'done' }, sequence);

const RECORDED: RunEventRow[] = [
  row(RunStartedV1, { runner: 'r0', baseCommit: BASE, branch: 'caravel/5f2b7c1e' }, 1),
  stepRow(0, 'ls', 'README.md', 2),
  finishedRow(3),
];

/** The thread sandboxes of a replay: one workspace at `baseCommit`, each discard recorded. */
function sandboxes(
  discarded: string[],
  workspace: { sandbox: Sandbox; tools: ToolSandboxAdapter; baseCommit: string },
): Partial<ThreadSandboxService> {
  return {
    discard: (id) => {
      discarded.push(id);
      return Promise.resolve(true);
    },
    forRun: (id) =>
      Promise.resolve({
        threadId: id,
        ...workspace,
        broker: {} as never,
        branch: 'caravel/5f2b7c1e',
        origin: null,
        outcome: 'created',
      }),
  };
}

const LEASE: Lease = { key: replayLeaseKey(RUN), holder: 'me', revision: 1, expiresAt: new Date() };

interface Setup {
  acquired?: Lease | null;
  holder?: string;
  rows?: RunEventRow[];
  sandbox?: Partial<ThreadSandboxService>;
}

function service(setup: Setup) {
  const published: { type: string; data: Record<string, unknown> }[] = [];
  const released: Lease[] = [];
  const leases = strictMock<LeaseStore>(
    {
      acquire: () => Promise.resolve(setup.acquired === undefined ? LEASE : setup.acquired),
      get: () => Promise.resolve(setup.holder ? { ...LEASE, holder: setup.holder } : null),
      release: (lease) => {
        released.push(lease);
        return Promise.resolve(true);
      },
    },
    'leases',
  );
  const replays = new ReplayService(
    strictMock<RunEventRepository>(
      { listByRun: () => Promise.resolve(setup.rows ?? RECORDED) },
      'events',
    ),
    strictMock<ThreadSandboxService>(setup.sandbox ?? {}, 'sandboxes'),
    strictMock<MessagePublisher>(
      {
        publish: (definition, data) => {
          published.push({ type: definition.type, data: data });
          return Promise.resolve({ duplicate: false } as PublishAck);
        },
      },
      'publisher',
    ),
    new LeaseKeeper(leases, strictMock<RunRepository>({}, 'runs'), 'r0'),
    strictMock<Bus>({ leases }, 'bus'),
    { name: 'r0' } as PlatformRuntime,
  );
  return {
    replay: (stopping?: AbortSignal) => replays.replay(REQUEST, () => Promise.resolve(), stopping),
    published,
    released,
  };
}

describe('ReplayService', () => {
  it('leaves a replay to the runner already doing it (a redelivery)', async () => {
    const { replay, published } = service({ acquired: null, holder: `r1/replay/${REPLAY}` });
    await replay();
    expect(published).toEqual([]);
  });

  it('sends back the request while another replay of the run holds it', async () => {
    const { replay } = service({ acquired: null, holder: 'r1/replay/another' });
    const error = await replay().catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('LEASE_HELD');
  });

  it('publishes nothing for a replay whose verdict is already indexed', async () => {
    const ended = row(ReplayFinishedV1, { replayId: REPLAY, status: 'completed' }, 4);
    const { replay, published, released } = service({ rows: [...RECORDED, ended] });
    await replay();
    expect(published).toEqual([]);
    expect(released).toEqual([LEASE]);
  });

  it('ends a run with no trajectory failed, with the reason, and asks for no sandbox', async () => {
    const { replay, published } = service({ rows: RECORDED.slice(0, 2) });
    await replay();
    expect(published).toEqual([
      {
        type: ReplayFinishedV1.type,
        data: expect.objectContaining({
          replayId: REPLAY,
          status: 'failed',
          error: expect.stringContaining(`run ${RUN} has no trajectory to replay`),
          comparison: null,
        }),
      },
    ]);
  });

  it('ends failed when the recorded base is not in the repository, and discards its sandbox', async () => {
    const discarded: string[] = [];
    const sandbox = strictMock<Sandbox>(
      { exec: () => Promise.resolve({ exitCode: 128, output: 'fatal: bad object' } as never) },
      'sandbox',
    );
    const { replay, published } = service({
      sandbox: sandboxes(discarded, {
        sandbox,
        tools: {} as ToolSandboxAdapter,
        baseCommit: 'b'.repeat(40),
      }),
    });
    await replay();
    expect(discarded).toHaveLength(2);
    expect(discarded[0]).not.toBe(THREAD);
    expect(published.map((p) => [p.type, p.data['status'], p.data['error']])).toEqual([
      [
        ReplayFinishedV1.type,
        'failed',
        `the recorded base commit ${BASE} is not in the repository any more: fatal: bad object`,
      ],
    ]);
  });

  it('hands back a replay its runner stops: the call in flight unreported, no verdict, its sandbox discarded', async () => {
    const recorded = [...RECORDED.slice(0, 2), stepRow(1, 'make test', 'ok', 3), finishedRow(4)];
    const stopping = new AbortController();
    let testsStarted!: () => void;
    const started = new Promise<void>((resolve) => (testsStarted = resolve));
    // `ls` answers; the tests run until the runner stops (their result never comes).
    const tools = strictMock<ToolSandbox>(
      {
        exec: ({ command }) => {
          if (command === 'ls') {
            return Promise.resolve({
              exitCode: 0,
              output: 'README.md',
              timedOut: false,
              truncated: false,
            });
          }
          testsStarted();
          return new Promise(() => undefined);
        },
      },
      'tools',
    );
    const discarded: string[] = [];
    const { replay, published, released } = service({
      rows: recorded,
      sandbox: sandboxes(discarded, {
        sandbox: strictMock<Sandbox>({}, 'sandbox'),
        tools: tools as ToolSandboxAdapter,
        baseCommit: BASE,
      }),
    });

    const replaying = replay(stopping.signal).catch((error: unknown) => error);
    await started;
    stopping.abort();

    expect(await replaying).toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
      details: { reason: 'shutting_down', replayId: REPLAY },
    });
    expect(published.map((p) => [p.type, p.data['index'] ?? null])).toEqual([
      [ReplayStartedV1.type, null],
      [ReplayStepV1.type, 0],
    ]);
    expect(discarded).toHaveLength(2);
    expect(released).toEqual([LEASE]);
  });
});

describe('outcomeOf', () => {
  const step = (verdict: ReplayStepOutcome['verdict'], ok: boolean) =>
    ({ verdict, ok, observation: '', action: {} }) as ReplayStepOutcome;
  it.each([
    ['same', true, 'matched'],
    ['same', false, 'matched'],
    ['differs', true, 'differed'],
    ['differs', false, 'failed'],
    ['unrecorded', true, 'unrecorded'],
  ] as const)('a %s observation (ok: %s) is %s', (verdict, ok, outcome) => {
    expect(outcomeOf(step(verdict, ok))).toBe(outcome);
  });
});
