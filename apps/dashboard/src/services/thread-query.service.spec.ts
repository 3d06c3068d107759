import { RunStepV1 } from '@caravel/contracts';
import type {
  CiWatchRepository,
  CiWatchRow,
  RunEventRepository,
  RunEventRow,
  RunRepository,
  ThreadPlanRepository,
  ThreadRepository,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import { commitAndOpenPrTool, type ScmPort } from '@caravel/tools';
import { describe, expect, it } from '@jest/globals';
import { threadDetailResponse } from '../api/queue-schemas.js';
import type { QueuePositionsService, QueuePositionView } from './queue-positions.service.js';
import { ThreadQueryService } from './thread-query.service.js';

const THREAD = '6f1d2c3b-4a59-4e68-9d7c-0b1a2c3d4e5f';
const PULL_URL = 'https://github.com/acme/widgets/pull/7';

interface Seen {
  status?: 'waiting' | 'completed';
  place?: Partial<QueuePositionView> | null;
  /** The thread's latest step with a successful `commit_and_open_pr`, if any. */
  step?: RunEventRow | null;
  /** The CI watch of the pull request, when a step names one. */
  watch?: CiWatchRow | null;
}

function service({ status = 'completed', place = null, step = null, watch = null }: Seen) {
  const runs = [factory.run({ threadId: THREAD, status })];
  const asked: unknown[][] = [];
  const query = new ThreadQueryService(
    strictMock<ThreadRepository>(
      { get: () => Promise.resolve(factory.thread({ id: THREAD })) },
      'threads',
    ),
    strictMock<RunRepository>({ listByThread: () => Promise.resolve(runs) }, 'runs'),
    strictMock<RunEventRepository>(
      {
        latestStepWithResult: (...args: unknown[]) => {
          asked.push(['step', ...args]);
          return Promise.resolve(step);
        },
      },
      'events',
    ),
    strictMock<ThreadPlanRepository>({}, 'plans'),
    // Strict: a thread with no waiting run must not read the queue at all.
    strictMock<QueuePositionsService>(
      place ? { ofThread: () => Promise.resolve(place as QueuePositionView) } : {},
      'queue',
    ),
    // Strict: a thread whose agent opened no pull request reads no CI watch.
    strictMock<CiWatchRepository>(
      step
        ? {
            findByPullRequest: (...args: unknown[]) => {
              asked.push(['watch', ...args]);
              return Promise.resolve(watch);
            },
          }
        : {},
      'watches',
    ),
  );
  return { query, asked };
}

/** The step of a run whose `commit_and_open_pr` opened (or updated) pull request 7, as the tool says it. */
async function openedStep(draft: boolean, found: boolean): Promise<RunEventRow> {
  const pull = { number: 7, url: PULL_URL, draft };
  const scm = strictMock<ScmPort>(
    {
      commitAndPush: () => Promise.resolve({ branch: 'caravel/fix-7', commitSha: 'a'.repeat(40) }),
      findOpenPullRequest: () => Promise.resolve(found ? pull : null),
      openPullRequest: () => Promise.resolve(pull),
      updatePullRequest: () => Promise.resolve(pull),
    },
    'scm',
  );
  const result = await commitAndOpenPrTool(scm, { draft }).invoke({
    commit_message: 'fix',
    title: 'Fix',
    body: '',
  });
  const content = result.observation;
  return factory.runEvent(RunStepV1, {
    threadId: THREAD,
    runId: '0b8f3a52-1c7d-4e69-8f21-6a5d4c3b2a10',
    step: 3,
    results: [
      { toolCallId: 'c1', name: 'bash', content: 'ok', status: 'success' },
      { toolCallId: 'c2', name: 'commit_and_open_pr', content, status: 'success' },
    ],
  });
}

describe('ThreadQueryService.thread', () => {
  it("answers where the thread's waiting run stands in the queue", async () => {
    const { query } = service({ status: 'waiting', place: { position: 3, repositoryPosition: 1 } });
    const detail = await query.thread(THREAD);
    expect(detail.queue).toEqual({ position: 3, repositoryPosition: 1 });
  });

  it('answers no queue place, without reading the queue, when no run of the thread waits', async () => {
    const detail = await service({}).query.thread(THREAD);
    expect(detail.queue).toBeNull();
    expect(detail.runs).toHaveLength(1);
  });

  it('answers the pull request its agent opened, a draft, open while dispatch watches its CI', async () => {
    const step = await openedStep(true, false);
    const { query, asked } = service({ step, watch: factory.ciWatch({ active: true }) });
    const { pullRequest } = await query.thread(THREAD);
    expect(pullRequest).toEqual({ number: 7, url: PULL_URL, draft: true, state: 'open' });
    expect(threadDetailResponse.shape.pullRequest.parse(pullRequest)).toEqual(pullRequest);
    expect(asked).toEqual([
      ['step', THREAD, 'commit_and_open_pr'],
      ['watch', 'acme', 'widgets', 7],
    ]);
  });

  it('answers a pull request updated ready for review as merged once its watch stopped so', async () => {
    const step = await openedStep(false, true);
    const watch = factory.ciWatch({ active: false, stoppedReason: 'pull_request_merged' });
    const { pullRequest } = await service({ step, watch }).query.thread(THREAD);
    expect(pullRequest).toEqual({ number: 7, url: PULL_URL, draft: false, state: 'merged' });
  });

  it('answers closed, or no state when its watch stopped for another reason or there is none', async () => {
    const step = await openedStep(true, false);
    const states = [];
    for (const watch of [
      factory.ciWatch({ active: false, stoppedReason: 'pull_request_closed' }),
      factory.ciWatch({ active: false, stoppedReason: 'stopped_on_request' }),
      null,
    ]) {
      states.push((await service({ step, watch }).query.thread(THREAD)).pullRequest?.state);
    }
    expect(states).toEqual(['closed', null, null]);
  });

  it('answers no pull request, reading no CI watch, when no step of the thread opened one', async () => {
    const { query, asked } = service({});
    expect((await query.thread(THREAD)).pullRequest).toBeNull();
    expect(asked).toEqual([['step', THREAD, 'commit_and_open_pr']]);
  });
});
