import { CiCheckReportedV1, RunStepV1, TriggerReceivedV1 } from '@caravel/contracts';
import type {
  CiWatchRepository,
  NewCiWatch,
  PullRequestHeadRepository,
  PullRequestHeadRow,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { dispatchConfigOf, dispatchEnvSchema } from '../dispatch.config.js';
import { CiWatchIntakeService, ciWatchId } from './ci-watch-intake.service.js';
import type { CiWatchService } from './ci-watch.service.js';

const THREAD = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';
const URL = 'https://github.com/acme/widgets/pull/7';

/** `pushed`: the pull request's latest push heard of at or after a report, as `since` finds it. */
function setup(pushed: PullRequestHeadRow | null = null) {
  const start = jest.fn((watch: NewCiWatch) =>
    Promise.resolve(factory.ciWatch({ id: watch.id, threadId: watch.threadId })),
  );
  const stop = jest.fn(() => Promise.resolve(true));
  const setAutofix = jest.fn(() => Promise.resolve(true));
  const watch = factory.ciWatch();
  const findByPullRequest = jest.fn(() => Promise.resolve(watch));
  const evaluate = jest.fn<CiWatchService['evaluate']>(() => Promise.resolve(null));
  const since = jest.fn<PullRequestHeadRepository['since']>(() => Promise.resolve(pushed));
  const intake = new CiWatchIntakeService(
    strictMock<CiWatchRepository>({ start, stop, setAutofix, findByPullRequest }),
    strictMock<CiWatchService>({ evaluate }),
    { now: () => new Date('2026-12-01T10:00:00Z') },
    dispatchConfigOf(dispatchEnvSchema.parse({})),
    strictMock<PullRequestHeadRepository>({ since }),
  );
  return { intake, start, stop, setAutofix, evaluate, watch, since };
}

describe('CiWatchIntakeService', () => {
  it("starts the watch of the agent's pull request from its commit_and_open_pr step", async () => {
    const { intake, start } = setup();
    await intake.onRunStep(
      RunStepV1.create(
        {
          ...RunStepV1.fixture().data,
          threadId: THREAD,
          results: [
            {
              toolCallId: 'c1',
              name: 'commit_and_open_pr',
              status: 'success',
              content: `Committed 0123456789ab and pushed caravel/5f2b7c1e; opened draft pull request #7: ${URL}`,
            },
            { toolCallId: 'c2', name: 'execute', status: 'success', content: 'ok' },
          ],
        },
        { source: 'agent-runner' },
      ),
    );
    expect(start.mock.calls).toEqual([
      [
        expect.objectContaining({
          id: ciWatchId('acme', 'widgets', 7),
          threadId: THREAD,
          asked: false,
          agentHead: '0123456789ab',
          url: URL,
        }),
      ],
    ]);
  });

  it('watches nothing, and warns of nothing, where the result says no pull request exists', async () => {
    const { intake, start } = setup();
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const step = (content: string) =>
      RunStepV1.create(
        {
          ...RunStepV1.fixture().data,
          threadId: THREAD,
          results: [{ toolCallId: 'c1', name: 'commit_and_open_pr', status: 'success', content }],
        },
        { source: 'agent-runner' },
      );
    try {
      await intake.onRunStep(
        step(
          "Committed 0123456789ab and pushed caravel/5f2b7c1e; the repository's remote has no pull requests, so the pushed branch stands for the draft pull request: /srv/widgets.git#caravel/5f2b7c1e",
        ),
      );
      await intake.onRunStep(
        step(
          'Committed 0123456789ab on caravel/5f2b7c1e; nothing is pushed or opened for an attempt: its pull request is opened only if it is selected (attempt 2)',
        ),
      );
      expect(warn).not.toHaveBeenCalled();
      await intake.onRunStep(step('Committed 0123456789ab somewhere'));
      expect(warn.mock.calls).toEqual([[expect.stringContaining('names no pull request')]]);
      expect(start).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('starts a watch a person asked for (an opt-in) and stops it on request', async () => {
    const { intake, start, stop } = setup();
    const request = { threadId: THREAD, runId: THREAD, pullRequestUrl: URL };
    expect(await intake.manage({ ...request, action: 'start' })).toMatchObject({
      watching: true,
      pullRequest: 'acme/widgets#7',
    });
    expect(start.mock.calls[0]?.[0]).toMatchObject({ asked: true, agentHead: undefined });
    expect(await intake.manage({ ...request, action: 'stop' })).toMatchObject({ watching: false });
    expect(stop).toHaveBeenCalledWith(
      ciWatchId('acme', 'widgets', 7),
      'stopped_on_request',
      expect.any(Date),
    );
    await expect(
      intake.manage({ ...request, action: 'start', pullRequestUrl: 'https://example.com/x' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('switches the watch by `@caravel autofix on|off` in a pull request comment, and only then', async () => {
    const { intake, setAutofix } = setup();
    const comment = (text: string, replyTo: Record<string, number> = { pullRequest: 7 }) =>
      TriggerReceivedV1.create(
        {
          ...TriggerReceivedV1.fixture().data,
          source: 'github',
          text,
          repository: { owner: 'acme', name: 'widgets' },
          replyTo,
        },
        { source: 'ingress' },
      );
    await intake.onTrigger(comment('@caravel autofix off, I will fix CI myself'));
    await intake.onTrigger(comment('@caravel please look at the parser'));
    await intake.onTrigger(comment('@caravel autofix on', { issue: 7 }));
    expect(setAutofix.mock.calls).toEqual([
      [ciWatchId('acme', 'widgets', 7), false, expect.any(Date)],
    ]);
  });

  it('evaluates the watched pull request a check names, but not a suite still queued', async () => {
    const { intake, evaluate, watch } = setup();
    const fixture = CiCheckReportedV1.fixture().data;
    const report = (event: 'check_run' | 'check_suite', status: 'queued' | 'completed') =>
      CiCheckReportedV1.create(
        { ...fixture, event, check: { kind: 'check_run', name: 'App', status, conclusion: null } },
        { source: 'ingress' },
      );
    await intake.onCheckReported(report('check_suite', 'queued'));
    expect(evaluate).not.toHaveBeenCalled();
    await intake.onCheckReported(report('check_run', 'queued'));
    expect(evaluate).toHaveBeenCalledWith(watch.id, {
      headSha: fixture.headSha,
      check: { kind: 'check_run', name: 'App', status: 'queued', conclusion: null },
    });
  });

  it('leaves a check on a head the pull request was pushed past before the check was handled', async () => {
    const fixture = CiCheckReportedV1.fixture().data;
    const cancelled = CiCheckReportedV1.create(
      {
        ...fixture,
        check: { kind: 'check_run', name: 'App', status: 'completed', conclusion: 'cancelled' },
      },
      { source: 'ingress' },
    );
    const pushedTo = (headSha: string): PullRequestHeadRow => ({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      headSha,
      seenAt: new Date(Date.parse(cancelled.occurredAt) + 1_000),
    });

    const moved = setup(pushedTo('f'.repeat(40)));
    await moved.intake.onCheckReported(cancelled);
    expect(moved.evaluate).not.toHaveBeenCalled();
    const [pullRequest, at] = moved.since.mock.calls[0]!;
    expect(pullRequest).toEqual({
      owner: moved.watch.repositoryOwner,
      repo: moved.watch.repositoryName,
      number: moved.watch.pullRequest,
    });
    expect(at).toEqual(new Date(cancelled.occurredAt));

    // The push it was reported before is to its own head: the check counts.
    const same = setup(pushedTo(fixture.headSha));
    await same.intake.onCheckReported(cancelled);
    expect(same.evaluate).toHaveBeenCalledTimes(1);
  });
});
