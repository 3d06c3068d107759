import { AppError } from '@caravel/errors';
import type { RunNoticeRepository, ThreadRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
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

describe('RunNotifierService.announce', () => {
  it('names the thread in the destination, so a Slack notice is mapped to it', async () => {
    const thread = factory.thread({
      source: 'slack',
      replyTo: { team: 'T1', channel: 'C1', threadTs: '1.5' },
    });
    const asked: ReplyDestination[] = [];
    const notifier = new RunNotifierService(
      strictMock<ThreadRepository>({ get: () => Promise.resolve(thread) }, 'threads'),
      strictMock<RunNoticeRepository>({}, 'notices'),
      strictMock<ReplyPort>(
        {
          reply: (destination) => {
            asked.push(destination);
            return Promise.resolve('posted');
          },
        },
        'replies',
      ),
      { now: () => new Date(0) },
    );

    expect(await notifier.announce(thread.id, 'key', 'Stopped.')).toBe('posted');
    expect(asked).toEqual([
      {
        source: 'slack',
        replyTo: { team: 'T1', channel: 'C1', threadTs: '1.5' },
        threadId: thread.id,
      },
    ]);
  });
});
