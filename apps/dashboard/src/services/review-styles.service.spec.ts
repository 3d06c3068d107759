import { AnalyzeReviewStyleV1 } from '@caravel/contracts';
import type { MessagePublisher } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { ReviewStylesService } from './review-styles.service.js';

describe('ReviewStylesService', () => {
  it("publishes a bootstrap request on the repository's analyzer thread, naming who asked", async () => {
    const published: [unknown, Record<string, unknown>][] = [];
    const publisher = strictMock<MessagePublisher>({
      publish: (definition, data) => {
        published.push([definition, data]);
        return Promise.resolve({ stream: 'TEST', sequence: published.length, duplicate: false });
      },
    });
    const answer = await new ReviewStylesService(publisher).analyze(
      { kind: 'machine' },
      'Acme',
      'widgets',
    );
    expect(answer).toMatchObject({
      repository: 'Acme/widgets',
      threadId: 'e0ccc71f-1165-5ade-8df9-06d01c4a26da',
    });
    expect(published).toEqual([
      [
        AnalyzeReviewStyleV1,
        expect.objectContaining({
          threadId: answer.threadId,
          repository: { owner: 'Acme', name: 'widgets' },
          mode: 'bootstrap',
          requestedBy: 'machine',
          requestId: answer.requestId,
        }),
      ],
    ]);
  });

  it('refuses a repository name GitHub could not have, publishing nothing', async () => {
    const publisher = {} as MessagePublisher;
    await expect(
      new ReviewStylesService(publisher).analyze({ kind: 'machine' }, 'acme', 'a b'),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
