import { jest } from '@jest/globals';
import type { RunConclusion } from '@caravel/agent';
import { CARAVEL_NAMESPACE, RunFinishedV1, StartRunV1, uuidV5 } from '@caravel/contracts';
import type { RunRepository, RunRow } from '@caravel/db';
import type { PlatformRuntime } from '@caravel/platform';
import { strictMock } from '@caravel/testing/doubles';
import { AIMessage } from '@langchain/core/messages';
import { Logger } from '@nestjs/common';
import { recordingPublisher } from '../testing/recording-publisher.js';
import { RunEventPublisher, endingToPublishAgain, runOutcomeOf } from './run-events.js';

const command = StartRunV1.fixture();
const { threadId, runId } = command.data;
const NOW = new Date('2026-12-01T12:00:00Z');
const idOf = (what: string, run = runId) => uuidV5(`${what}:${run}`, CARAVEL_NAMESPACE);

const submitted = (submission: string | null): RunConclusion => ({
  exitStatus: 'submitted',
  submission,
  observation: 'done',
});

function runRow(overrides: Partial<RunRow> = {}): RunRow {
  return {
    id: runId,
    threadId,
    triggerId: 'g-1',
    status: 'running',
    exitStatus: null,
    summary: '',
    runner: 'runner-a',
    createdAt: NOW,
    startedAt: NOW,
    finishedAt: null,
    heartbeatAt: NOW,
    concludedAt: null,
    conclusion: null,
    ...overrides,
  };
}

/** The publisher of runner `runner-b`, with its publishes and the conclusions it records in one log. */
function publisherWith(refuse?: (type: string) => boolean) {
  const recording = recordingPublisher(refuse);
  const log: string[] = [];
  const runs = strictMock<RunRepository>(
    {
      recordConclusion: (id, conclusion) => {
        log.push(`record ${id} ${String((conclusion as { outcome: string }).outcome)}`);
        return Promise.resolve(true);
      },
    },
    'runs',
  );
  const { publisher } = recording;
  const publish = publisher.publish.bind(publisher);
  publisher.publish = async (definition, data, options) => {
    log.push(`publish ${definition.type}`);
    return publish(definition, data, options);
  };
  const runtime = strictMock<PlatformRuntime>({ name: 'runner-b' }, 'runtime');
  return { events: new RunEventPublisher(publisher, runs, runtime), recording, log };
}

describe('RunEventPublisher', () => {
  it('announces a run once, with its starting point, under an id derived from the run', async () => {
    const { events, recording } = publisherWith();
    const run = events.forRun(command);

    await run.announce({ branch: 'caravel/x', baseCommit: 'a'.repeat(40), model: 'scripted:s' });
    await run.announce({ branch: 'other' });

    expect(recording.published).toEqual([
      expect.objectContaining({
        type: 'evt.run.started',
        id: idOf('started'),
        causationId: command.id,
        data: expect.objectContaining({ runId, runner: 'runner-b', branch: 'caravel/x' }),
      }),
    ]);
  });

  it("records the run's ending on the run before it says so on the bus, announcing it first if nothing did", async () => {
    const { events, recording, log } = publisherWith();

    await events.forRun(command).finish(submitted('diff'));

    expect(log).toEqual([
      'publish evt.run.started',
      `record ${runId} completed`,
      'publish evt.run.finished',
    ]);
    expect(recording.published[1]).toMatchObject({
      id: idOf('finished'),
      data: { outcome: 'completed', exitStatus: 'submitted', summary: 'done', submission: 'diff' },
    });
  });

  it('tells an interrupted run from a failed one, and leaves out a patch too large for the bus', async () => {
    const { events, recording } = publisherWith();
    const interrupted = { exitStatus: 'exit_interrupted', submission: null, observation: 'x' };
    const failed = {
      exitStatus: 'exit_cost',
      submission: 'x'.repeat(513 * 1024),
      observation: 'y',
    };

    await events.forRun(command).finish(interrupted as RunConclusion);
    await events.forRun(command).finish(failed as RunConclusion);

    const [first, second] = recording.dataOf('evt.run.finished');
    expect(first).toMatchObject({ outcome: 'interrupted', submission: null });
    expect(second).toMatchObject({ outcome: 'failed', exitStatus: 'exit_cost' });
    expect(second).not.toHaveProperty('submission');
  });

  it.each([
    ['submitted', 'completed'],
    ['submitted (exit_forfeit)', 'failed'],
    ['submitted (exit_cost)', 'failed'],
    ['submitted (exit_total_execution_time)', 'failed'],
    ['exit_forfeit', 'failed'],
    ['exit_format', 'failed'],
    ['exit_budget_paused', 'interrupted'],
    ['exit_interrupted', 'interrupted'],
  ] as const)('a run that ends %s has %s', (exitStatus, outcome) => {
    expect(runOutcomeOf(exitStatus)).toBe(outcome);
  });

  it("ends a submission its pull request does not hold as failed, its patch and the publish's coded reason carried", async () => {
    const { events, recording } = publisherWith();
    const why = { reason: 'workflow_permission', files: ['.github/workflows/ci.yml'] };
    const unpublished = {
      exitStatus: 'submitted (exit_unpublished)',
      submission: '+fix',
      observation: 'The changes are not in a pull request: their last publish failed',
    } as const;

    await events.forRun(command).finish({ ...unpublished, unpublished: why });
    await events.forRun(command).finish(unpublished);

    expect(recording.dataOf('evt.run.finished')).toEqual([
      expect.objectContaining({
        outcome: 'failed',
        exitStatus: 'submitted (exit_unpublished)',
        submission: '+fix',
        unpublished: why,
      }),
      expect.not.objectContaining({ unpublished: expect.anything() }),
    ]);
  });

  it('logs why a run ended on a failed environment, and stays quiet for other endings', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { events } = publisherWith();
      const stopped = 'Stopped: the sandbox failed 3 times in a row (last error: TIMEOUT).';
      const environment = { exitStatus: 'exit_environment_error', submission: null };
      await events
        .forRun(command)
        .finish({ ...environment, observation: stopped } as RunConclusion);
      await events.forRun(command).finish(submitted('diff'));
      expect(warn.mock.calls).toEqual([
        [
          expect.stringMatching(
            /ended exit_environment_error: Stopped: the sandbox failed 3 times/,
          ),
        ],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('sends the live output in numbered pieces, and drops a piece the bus refuses', async () => {
    jest.useFakeTimers();
    try {
      let refusals = 1;
      const { events, recording } = publisherWith(
        (type) => type === 'evt.run.output' && refusals-- > 0,
      );
      const live = events.forRun(command).liveOutput();

      live.push('lost');
      await jest.advanceTimersByTimeAsync(300);
      live.push('$ npm test\n');
      await live.close();

      expect(recording.dataOf('evt.run.output')).toEqual([
        { threadId, runId, piece: 1, text: '$ npm test\n', capped: false },
      ]);
    } finally {
      jest.useRealTimers();
    }
  });

  it("publishes a run's steps through its recorder", async () => {
    const { events, recording } = publisherWith();
    const recorder = events.forRun(command).steps();

    await recorder.record(new AIMessage({ id: 'm-1', content: 'Looking around' }));
    await recorder.flush();

    expect(recording.types()).toEqual(['evt.run.step']);
  });

  it('publishes again, under the same id, the ending a runner recorded but dispatch never saw', async () => {
    const { events, recording } = publisherWith();
    const ending = RunFinishedV1.fixture().data;

    const again = await events.publishEndingAgain(
      command,
      runRow({ concludedAt: NOW, conclusion: ending }),
    );
    const ended = await events.publishEndingAgain(command, runRow({ finishedAt: NOW }));

    expect([again, ended]).toEqual([true, false]);
    expect(recording.published).toEqual([
      expect.objectContaining({ type: 'evt.run.finished', id: idOf('finished'), data: ending }),
    ]);
  });
});

describe('endingToPublishAgain', () => {
  it("gives the recorded ending only while dispatch has not recorded the run's end", () => {
    const ending = RunFinishedV1.fixture().data;
    expect(endingToPublishAgain(runRow({ concludedAt: NOW, conclusion: ending }))).toEqual(ending);
    expect(
      endingToPublishAgain(runRow({ concludedAt: NOW, conclusion: ending, finishedAt: NOW })),
    ).toBeNull();
    expect(endingToPublishAgain(runRow({ concludedAt: NOW, conclusion: { runId: 7 } }))).toBeNull();
    expect(endingToPublishAgain(runRow())).toBeNull();
  });
});
