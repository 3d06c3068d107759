import { AnalyzeReviewStyleV1 } from '@caravel/contracts';
import type {
  EvalProposalRepository,
  EvalProposalRow,
  NewEvalProposal,
  ReviewStyleRepository,
  ReviewStyleRow,
} from '@caravel/db';
import type { MessagePublisher } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import type { Caller } from '../auth/session.types.js';
import { ReviewStylesService } from './review-styles.service.js';

const alice: Caller = {
  kind: 'person',
  session: { login: 'alice', role: 'admin' },
} as Caller;

const version = (n: number, prompt: string): ReviewStyleRow => ({
  id: `id-${n}`,
  repository: 'acme/widgets',
  version: n,
  mode: 'bootstrap',
  threadId: 'e0ccc71f-1165-5ade-8df9-06d01c4a26da',
  prompt,
  summary: 'Short and strict.',
  wordCount: 4,
  model: 'scripted:style.json',
  pullRequests: [3, 7],
  commentIds: ['101', '102', '103'],
  reviewers: ['bob'],
  counts: { pullRequests: 2, comments: 3, reviewers: 1 },
  editedBy: null,
  proposalId: null,
  createdAt: new Date('2026-12-01T00:00:00Z'),
});

const CURRENT = 'Review like acme: tests first, no nitpicks.';

function service(
  styles: Partial<ReviewStyleRepository>,
  proposals: Partial<EvalProposalRepository> = {},
) {
  return new ReviewStylesService(
    strictMock<MessagePublisher>({}),
    strictMock<ReviewStyleRepository>(styles),
    strictMock<EvalProposalRepository>(proposals),
  );
}

describe('ReviewStylesService', () => {
  it("publishes a bootstrap request on the repository's analyzer thread, naming who asked", async () => {
    const published: [unknown, Record<string, unknown>][] = [];
    const publisher = strictMock<MessagePublisher>({
      publish: (definition, data) => {
        published.push([definition, data]);
        return Promise.resolve({ stream: 'TEST', sequence: published.length, duplicate: false });
      },
    });
    const answer = await new ReviewStylesService(
      publisher,
      strictMock<ReviewStyleRepository>({}),
      strictMock<EvalProposalRepository>({}),
    ).analyze({ kind: 'machine' }, 'Acme', 'widgets');
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
    await expect(service({}).analyze({ kind: 'machine' }, 'acme', 'a b')).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });

  it("reads a repository's versions newest first without their prompts, and its proposed edits", async () => {
    const edits = [{ id: 'p1', kind: 'review-style', status: 'pending' } as EvalProposalRow];
    const asked: unknown[] = [];
    const history = await service(
      {
        newestFirst: (repository, limit) => {
          asked.push([repository, limit]);
          return Promise.resolve([version(2, 'v2'), version(1, CURRENT)]);
        },
      },
      {
        list: (query) => {
          asked.push(query);
          return Promise.resolve(edits);
        },
      },
    ).history('Acme', 'Widgets', 50);
    expect(asked).toEqual([
      ['acme/widgets', 50],
      { kind: 'review-style', repository: 'acme/widgets', limit: 50 },
    ]);
    expect(history.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(history.versions[0]).not.toHaveProperty('prompt');
    expect(history.versions[0]).toMatchObject({ comments: 3, pullRequests: [3, 7] });
    expect(history.proposals).toBe(edits);
  });

  it('answers 404 for a repository with no style and for a version it never had', async () => {
    const none = service(
      { newestFirst: () => Promise.resolve([]), version: () => Promise.resolve(null) },
      { list: () => Promise.resolve([]) },
    );
    await expect(none.history('acme', 'gadgets', 10)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'acme/gadgets has no review style',
    });
    await expect(none.version('acme', 'widgets', 9)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records an edit as a pending review-style proposal against the version in force, saving no style', async () => {
    const recorded: NewEvalProposal[] = [];
    const proposal = await service(
      { latest: () => Promise.resolve(version(3, CURRENT)) },
      {
        propose: (p) => {
          recorded.push(p);
          return Promise.resolve({ id: p.id, status: 'pending' } as EvalProposalRow);
        },
      },
    ).propose(alice, 'Acme', 'Widgets', {
      prompt: 'Review like acme: tests first, and name the missing one.',
      suite: 'sample',
      note: 'sharper on tests',
    });
    expect(proposal.status).toBe('pending');
    expect(recorded).toEqual([
      expect.objectContaining({
        suite: 'sample',
        config: 'style:acme/widgets',
        proposedBy: 'alice',
        note: 'sharper on tests',
        style: {
          repository: 'acme/widgets',
          prompt: 'Review like acme: tests first, and name the missing one.',
          summary: null,
          baseVersion: 3,
        },
      }),
    ]);
  });

  it('refuses an edit that is the prompt in force (400), recording nothing', async () => {
    await expect(
      service({ latest: () => Promise.resolve(version(3, CURRENT)) }).propose(
        alice,
        'acme',
        'widgets',
        { prompt: CURRENT, suite: 'sample' },
      ),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('version 3') });
  });
});
