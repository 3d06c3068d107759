import { AppError } from '@caravel/errors';
import type { RunNoticeRepository, ThreadRepository } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import type { ReplyDestination, ReplyPort } from './reply.port.js';
import { RunNotifierService } from './run-notifier.service.js';

function notifierWith(acknowledge: ReplyPort['acknowledge']) {
  const asked: ReplyDestination[] = [];
  const replies = strictMock<ReplyPort>(
    {
      acknowledge: (destination) => {
        asked.push(destination);
        return acknowledge(destination);
      },
    },
    'replies',
  );
  const notifier = new RunNotifierService(
    strictMock<ThreadRepository>({}, 'threads'),
    strictMock<RunNoticeRepository>({}, 'notices'),
    replies,
    { now: () => new Date(0) },
  );
  return { notifier, asked };
}

const trigger = {
  threadId: 't-1',
  source: 'github' as const,
  replyTo: { pullRequest: 7, reviewCommentId: 31 },
  repository: { owner: 'acme', name: 'widgets', cloneUrl: '/somewhere' },
};

describe('RunNotifierService.received', () => {
  it("acknowledges where the trigger's own pointer says, on its repository", async () => {
    const { notifier, asked } = notifierWith(() => Promise.resolve('posted'));
    await notifier.received(trigger);
    expect(asked).toEqual([
      {
        source: 'github',
        replyTo: { pullRequest: 7, reviewCommentId: 31 },
        repository: { owner: 'acme', name: 'widgets' },
      },
    ]);
  });

  it('never fails the trigger when the source refuses the reaction', async () => {
    const { notifier } = notifierWith(() =>
      Promise.reject(new AppError('FORBIDDEN', 'Resource not accessible by integration')),
    );
    await expect(notifier.received(trigger)).resolves.toBeUndefined();
  });
});
