import { CannedChatModel } from '@caravel/agent/langchain';
import { AnalyzeReviewStyleV1 } from '@caravel/contracts';
import type { FindingOutcomeRow, NewReviewStyle, ReviewStyleRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { strictMock } from '@caravel/testing/doubles';
import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { CommentReaction, SurfacedFinding } from '../continual/finding-reactions.js';
import type { AnalysisRunsOptions } from './analysis-runs.options.js';
import { AnalyzerKitLoader } from '../agent/analyzer-kit.loader.js';
import { ReviewStyleService } from './review-style.service.js';

const kit = new AnalyzerKitLoader();

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
const current = factory.reviewStyle({
  version: 1,
  prompt: 'Be strict about names.',
  reviewers: ['alice', 'bob'],
  createdAt: new Date('2026-12-01T00:00:00Z'),
});
const dismissed: FindingOutcomeRow = {
  id: 'f_00000000aa',
  number: 12,
  category: 'style',
  severity: 'low',
  title: 'Rename this',
  status: 'dismissed',
  resolution: { kind: 'dismissed' },
  interactions: [
    { kind: 'human_reply', author: { kind: 'person', login: 'bob' }, body: 'We allow it.' },
  ],
  updatedAt: new Date('2026-12-01T10:00:00Z'),
};
const continual = AnalyzeReviewStyleV1.fixture().data;
const request = { ...continual, mode: 'continual' as const, requestedBy: 'nightly' };

/** The repository's styles: `current` in force, `outcomes` since; saves recorded. */
function stylesDouble(
  outcomes: FindingOutcomeRow[],
  saved: NewReviewStyle[],
  surfaced: SurfacedFinding[] = [],
) {
  return strictMock<ReviewStyleRepository>({
    surfacedFindings: () => Promise.resolve(surfaced),
    latest: () => Promise.resolve(current),
    findingOutcomesSince: (_repository: string, since: Date) => {
      expect(since).toEqual(current.createdAt);
      return Promise.resolve(outcomes);
    },
    save: (style: NewReviewStyle) => {
      saved.push(style);
      return Promise.resolve(factory.reviewStyle({ ...style, version: 2 }));
    },
  });
}

/** A model that reads the outcomes, then saves a 420-word style with `summary`. */
function savingModel(summary: string): CannedChatModel {
  return new CannedChatModel({
    responses: [
      { origin: '1', toolCalls: [{ name: 'read_finding_outcomes', args: {} }] },
      {
        origin: '2',
        toolCalls: [{ name: 'save_review_style_prompt', args: { prompt: words(420), summary } }],
      },
      { origin: '3', content: 'Saved.' },
    ],
    file: 'review-style.service.spec.ts',
    kind: 'scripted',
  });
}

function options(
  model: () => Promise<CannedChatModel>,
  reactions: Record<string, CommentReaction[]> = {},
): AnalysisRunsOptions {
  return {
    history: () => {
      throw new Error('a continual run reads no history');
    },
    reactions: () => ({
      listReviewCommentReactions: (id: number) => Promise.resolve(reactions[String(id)] ?? []),
      isCollaborator: () => Promise.resolve(true),
    }),
    model,
    modelName: 'scripted:continual.json',
    botLogin: 'caravel[bot]',
  };
}

describe('a continual run', () => {
  let logged: string[];
  beforeEach(() => {
    logged = [];
    jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => {
      logged.push(String(message));
    });
  });
  afterEach(() => jest.restoreAllMocks());

  it('asks the model nothing and saves nothing without outcomes since the latest version', async () => {
    const saved: NewReviewStyle[] = [];
    const service = new ReviewStyleService(
      stylesDouble([], saved),
      options(() => {
        throw new Error('no model without outcomes');
      }),
      kit,
    );
    expect(await service.analyze(request)).toEqual({ saved: null, reason: 'no_outcomes' });
    expect(saved).toEqual([]);
    expect(logged).toEqual([
      'acme/widgets continual (asked by nightly): nothing saved (no_outcomes)',
    ]);
  });

  it('saves a new continual version from the outcomes, with them as provenance', async () => {
    const saved: NewReviewStyle[] = [];
    const model = savingModel('Names relaxed.');
    const service = new ReviewStyleService(
      stylesDouble([dismissed], saved),
      options(() => Promise.resolve(model)),
      kit,
    );
    const outcome = await service.analyze(request);
    expect(outcome.saved?.version).toBe(2);
    expect(saved).toEqual([
      expect.objectContaining({
        mode: 'continual',
        wordCount: 420,
        pullRequests: [12],
        commentIds: ['f_00000000aa'],
        reviewers: ['alice', 'bob'],
        counts: { pullRequests: 1, comments: 0, reviewers: 2, outcomes: 1 },
      }),
    ]);
    expect(model.calls).toHaveLength(3);
  });

  it("runs on people's 👍/👎 alone, the reacted finding kept as provenance", async () => {
    const saved: NewReviewStyle[] = [];
    const model = savingModel('Less.');
    const open = { ...dismissed, id: 'f_00000000bb', status: 'open', resolution: null };
    const after = '2026-12-01T12:00:00Z';
    const down = (author: string, at = after) => ({ content: '-1', author, bot: false, at });
    const service = new ReviewStyleService(
      stylesDouble([], saved, [{ ...open, interactions: [], commentId: '9001' }]),
      options(() => Promise.resolve(model), {
        '9001': [down('alice'), down('carol'), down('bob', '2026-11-30')],
      }),
      kit,
    );
    expect((await service.analyze(request)).saved?.version).toBe(2);
    expect(saved[0]).toMatchObject({ commentIds: ['f_00000000bb'], pullRequests: [12] });
    expect(model.calls).toHaveLength(3);
  });

  it('saves nothing for reactions made before the version, or by bots', async () => {
    const saved: NewReviewStyle[] = [];
    const service = new ReviewStyleService(
      stylesDouble([], saved, [{ ...dismissed, commentId: '9002' }]),
      options(
        () => {
          throw new Error('no model without outcomes');
        },
        {
          '9002': [
            { content: '+1', author: 'alice', bot: false, at: '2026-11-30T00:00:00Z' },
            { content: '-1', author: 'ci[bot]', bot: true, at: '2026-12-02T00:00:00Z' },
            { content: '+1', author: 'caravel[bot]', bot: false, at: '2026-12-02T00:00:00Z' },
          ],
        },
      ),
      kit,
    );
    expect(await service.analyze(request)).toEqual({ saved: null, reason: 'no_outcomes' });
    expect(saved).toEqual([]);
  });

  it('runs nothing for a request a version saved after it already answers (a redelivery)', async () => {
    const saved: NewReviewStyle[] = [];
    const service = new ReviewStyleService(
      stylesDouble([dismissed], saved),
      options(() => {
        throw new Error('no model for an answered request');
      }),
      kit,
    );
    const askedBefore = new Date(current.createdAt.getTime() - 1_000);
    expect(await service.analyze(request, askedBefore)).toEqual({
      saved: null,
      reason: 'already_answered',
    });
    expect(saved).toEqual([]);
  });

  it('saves nothing when the model judges the outcomes change nothing', async () => {
    const saved: NewReviewStyle[] = [];
    const model = new CannedChatModel({
      responses: [
        { origin: '1', toolCalls: [{ name: 'read_finding_outcomes', args: {} }] },
        { origin: '2', content: 'The style stands.' },
      ],
      file: 'review-style.service.spec.ts',
      kind: 'scripted',
    });
    const service = new ReviewStyleService(
      stylesDouble([dismissed], saved),
      options(() => Promise.resolve(model)),
      kit,
    );
    expect(await service.analyze(request)).toEqual({ saved: null, reason: 'model_kept_style' });
    expect(saved).toEqual([]);
  });
});

describe('a bootstrap', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('fails with the reason when the model ends without saving', async () => {
    const model = new CannedChatModel({
      responses: [{ origin: '1', content: 'Nothing to learn.' }],
      file: 'review-style.service.spec.ts',
      kind: 'scripted',
    });
    const styles = strictMock<ReviewStyleRepository>({ latest: () => Promise.resolve(null) });
    const service = new ReviewStyleService(
      styles,
      {
        ...options(() => Promise.resolve(model)),
        history: () => ({
          listMergedPullRequests: () => Promise.resolve([]),
          listReviewComments: () => Promise.resolve([]),
        }),
      },
      kit,
    );
    await expect(service.analyze(AnalyzeReviewStyleV1.fixture().data)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringContaining('ended without save_review_style_prompt: nothing was saved'),
    });
  });

  it('fails when no credential can read the history', async () => {
    const styles = strictMock<ReviewStyleRepository>({ latest: () => Promise.resolve(null) });
    const service = new ReviewStyleService(
      styles,
      {
        ...options(() => {
          throw new Error('no model');
        }),
        history: () => null,
      },
      kit,
    );
    await expect(service.analyze(AnalyzeReviewStyleV1.fixture().data)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: expect.stringContaining("no GitHub credential can read acme/widgets's history"),
    });
  });
});
