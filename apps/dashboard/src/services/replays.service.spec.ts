import {
  ReplayFinishedV1,
  ReplayRunV1,
  ReplayStartedV1,
  ReplayStepV1,
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  replayIdFor,
  type MessageDefinition,
} from '@caravel/contracts';
import type {
  RunEventRepository,
  RunEventRow,
  RunRepository,
  RunRow,
  ThreadRepository,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { MessagePublisher, PublishAck } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { ReplaysService } from './replays.service.js';

const THREAD = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';
const RUN = '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10';
const FINISHED_AT = new Date('2026-11-30T10:00:00Z');

function row(definition: MessageDefinition, data: Record<string, unknown>): RunEventRow {
  return factory.runEvent(definition, { threadId: THREAD, runId: RUN, ...data });
}

/** A finished run that listed the workspace once and submitted nothing. */
function recordedRun(): RunEventRow[] {
  return [
    row(RunStartedV1, {
      runner: 'agent-runner-0',
      baseCommit: 'a'.repeat(40),
      branch: 'caravel/6f1d2c3b',
    }),
    row(RunStepV1, {
      step: 0,
      action: 'ls',
      toolCalls: [{ id: 'c0', name: 'execute', args: { command: 'ls' } }],
      results: [{ toolCallId: 'c0', name: 'execute', content: 'README.md', status: 'success' }],
    }),
    row(RunFinishedV1, { outcome: 'completed', exitStatus: 'submitted', summary: 'done' }),
  ];
}

function replayRows(replayId: string, ended: boolean): RunEventRow[] {
  const scope = { replayId };
  return [
    row(ReplayRunV1, { ...scope, requestedBy: { externalId: 'octocat' } }),
    row(ReplayStartedV1, {
      ...scope,
      runner: 'r0',
      baseCommit: 'a'.repeat(40),
      branch: 'b',
      calls: 1,
    }),
    row(ReplayStepV1, {
      ...scope,
      index: 0,
      step: 0,
      call: 0,
      name: 'execute',
      outcome: 'differed',
      observation: 'README.md\nNEW',
      difference: 'line 2: recorded "(end)", replayed "NEW"',
    }),
    ...(ended
      ? [
          row(ReplayFinishedV1, {
            ...scope,
            status: 'completed',
            matched: 0,
            differed: 1,
            failed: 0,
            comparison: { identical: true, byteIdentical: true, difference: 'none', summary: '' },
            recordedPatch: null,
            replayedPatch: null,
          }),
        ]
      : []),
  ];
}

function service(options: { runs?: Partial<RunRow>[]; events?: RunEventRow[]; thread?: boolean }) {
  const published: { type: string; data: unknown; id: string | undefined }[] = [];
  const runs = (options.runs ?? [{}]).map((run) =>
    factory.run({
      id: RUN,
      threadId: THREAD,
      status: 'completed',
      finishedAt: FINISHED_AT,
      ...run,
    }),
  );
  const events = options.events ?? recordedRun();
  const replays = new ReplaysService(
    strictMock<ThreadRepository>(
      {
        get: () =>
          Promise.resolve(options.thread === false ? null : factory.thread({ id: THREAD })),
      },
      'threads',
    ),
    strictMock<RunRepository>({ listByThread: () => Promise.resolve(runs) }, 'runs'),
    strictMock<RunEventRepository>(
      {
        listByRun: () => Promise.resolve(events),
        listByThread: (_thread, query) =>
          Promise.resolve(events.filter((e) => query?.types?.includes(e.type) ?? true)),
      },
      'events',
    ),
    strictMock<MessagePublisher>(
      {
        publish: (definition, data, envelope) => {
          published.push({ type: definition.type, data, id: envelope?.id });
          return Promise.resolve({ duplicate: false } as PublishAck);
        },
      },
      'publisher',
    ),
  );
  return { replays, published };
}

describe('ReplaysService.request', () => {
  it("asks the runner to replay the thread's latest finished run, as the person", async () => {
    const { replays, published } = service({});

    const answer = await replays.request(THREAD, { author: 'octocat' });

    const replayId = replayIdFor(RUN, 1);
    expect(answer).toEqual({ replayId, runId: RUN, status: 'requested' });
    expect(published).toEqual([
      {
        type: ReplayRunV1.type,
        id: replayId,
        data: { threadId: THREAD, runId: RUN, replayId, requestedBy: { externalId: 'octocat' } },
      },
    ]);
  });

  it('answers the pending replay of the run instead of starting a second', async () => {
    const { replays, published } = service({
      events: [...recordedRun(), ...replayRows(replayIdFor(RUN, 1), false)],
    });

    const answer = await replays.request(THREAD, { author: 'octocat', runId: RUN });

    expect(answer).toEqual({ replayId: replayIdFor(RUN, 1), runId: RUN, status: 'running' });
    expect(published).toEqual([]);
  });

  it('starts a new replay once the previous one ended', async () => {
    const { replays, published } = service({
      events: [...recordedRun(), ...replayRows(replayIdFor(RUN, 1), true)],
    });

    const answer = await replays.request(THREAD, { author: 'octocat' });

    expect(answer.replayId).toBe(replayIdFor(RUN, 2));
    expect(published).toHaveLength(1);
  });

  it('refuses an unknown thread, a run of another thread, a run not finished, a thread with none', async () => {
    const other = '1b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a11';
    const running = service({ runs: [{ status: 'running', finishedAt: null }] });
    await expect(
      service({ thread: false }).replays.request(THREAD, { author: 'a' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: `no thread ${THREAD}` });
    await expect(
      service({}).replays.request(THREAD, { author: 'a', runId: other }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', message: `thread ${THREAD} has no run ${other}` });
    await expect(
      running.replays.request(THREAD, { author: 'a', runId: RUN }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `run ${RUN} has not finished (it is running)`,
    });
    await expect(running.replays.request(THREAD, { author: 'a' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `thread ${THREAD} has no finished run to replay`,
    });
  });

  it('refuses a run whose events make no trajectory, publishing nothing', async () => {
    const { replays, published } = service({ events: recordedRun().slice(0, 1) });

    await expect(replays.request(THREAD, { author: 'a' })).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringMatching(/^run .* has no trajectory to replay/),
    });
    expect(published).toEqual([]);
  });
});

describe('ReplaysService.list and get', () => {
  it('reads each replay back from its events: status, counts, steps and verdict', async () => {
    const first = replayIdFor(RUN, 1);
    const second = replayIdFor(RUN, 2);
    const { replays } = service({
      events: [...recordedRun(), ...replayRows(first, true), ...replayRows(second, false)],
    });

    const list = await replays.list(THREAD);
    const detail = await replays.get(THREAD, first);

    expect(list.map((r) => [r.id, r.status])).toEqual([
      [second, 'running'],
      [first, 'completed'],
    ]);
    expect(list[0]).not.toHaveProperty('steps');
    expect(detail).toMatchObject({
      runId: RUN,
      requestedBy: 'octocat',
      counts: { replayed: 1, matched: 0, differed: 1, failed: 0 },
      comparison: { identical: true, difference: 'none' },
      steps: [
        { index: 0, outcome: 'differed', difference: 'line 2: recorded "(end)", replayed "NEW"' },
      ],
    });
    await expect(replays.get(THREAD, replayIdFor(RUN, 3))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
