import { describe, expect, it } from '@jest/globals';

import { findingSchema, type Actor } from '../model/finding.model.js';
import { fingerprintOf } from '../model/fingerprint.js';
import { PR_LINES } from '../testing/diffs.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { ingestReviewComments, type IngestContext, type ReviewComment } from './ingest.js';

const T1 = '2026-03-02T10:00:00.000Z';
const RABBIT: Actor = { kind: 'bot', login: 'coderabbitai[bot]', bot: 'coderabbit' };
const COPILOT: Actor = { kind: 'bot', login: 'Copilot', bot: 'copilot' };
const ADA: Actor = { kind: 'person', login: 'ada' };
let ids = 0;
const CONTEXT: IngestContext = {
  headSha: sha('a'),
  changedLines: PR_LINES,
  at: T1,
  newId: () => `f_${(0xc0000 + (ids += 1)).toString(16).padStart(10, '0')}`,
};

const comment = (overrides: Partial<ReviewComment>): ReviewComment => ({
  commentId: '1000',
  reviewId: '900',
  threadId: 'PRRT_x',
  inReplyToId: null,
  author: RABBIT,
  path: 'src/app.ts',
  startLine: 10,
  line: 11,
  side: 'RIGHT',
  commitId: sha('a'),
  body: '**Guard against an empty list.**\n\nDividing by `items.length` yields NaN.',
  url: 'https://github.com/o/r/pull/1#discussion_r1000',
  createdAt: T0,
  ...overrides,
});

describe('ingestReviewComments', () => {
  it('takes another bot comment in as an open finding of its author, to be checked by the reviewer', () => {
    const result = ingestReviewComments([], [comment({})], CONTEXT);
    expect(result.outcomes).toEqual([
      { commentId: '1000', kind: 'added', findingId: result.findings[0]?.id },
    ]);
    const finding = result.findings[0];
    expect(finding).toMatchObject({
      author: RABBIT,
      title: 'Guard against an empty list.',
      status: 'open',
      recheck: ['ingested'],
      inDiff: true,
      anchor: { file: 'src/app.ts', startLine: 10, endLine: 11, side: 'RIGHT', sha: sha('a') },
      reports: [{ author: RABBIT, commentId: '1000', threadId: 'PRRT_x', sha: sha('a') }],
      surface: { state: 'not_surfaced' },
    });
    expect(findingSchema.parse(finding)).toEqual(finding);
  });

  it('changes nothing when the same comments are ingested again', () => {
    const once = ingestReviewComments([], [comment({})], CONTEXT);
    const twice = ingestReviewComments(once.findings, [comment({})], CONTEXT);
    expect(twice.changed).toEqual([]);
    expect(twice.outcomes).toEqual([
      { commentId: '1000', kind: 'known', findingId: once.findings[0]?.id },
    ]);
  });

  it('attributes a repeat of a ledger finding at the same lines instead of duplicating it', () => {
    const description = 'Dividing by `items.length` yields NaN.';
    const caravel = aFinding({
      file: 'src/app.ts',
      startLine: 10,
      endLine: 11,
      description,
      fingerprint: fingerprintOf({
        file: 'src/app.ts',
        startLine: 10,
        endLine: 11,
        side: 'RIGHT',
        description,
      }),
    });
    const result = ingestReviewComments(
      [caravel],
      [comment({ author: COPILOT, body: `Empty list\n${description.toUpperCase()}` })],
      CONTEXT,
    );
    expect(result.findings).toHaveLength(1);
    expect(result.outcomes).toEqual([
      { commentId: '1000', kind: 'attributed', findingId: caravel.id },
    ]);
    expect(result.findings[0]?.reports).toMatchObject([{ author: COPILOT, commentId: '1000' }]);
    expect(result.findings[0]?.author).toEqual({ kind: 'caravel' });
  });

  it('attributes a bot re-posting its comment after a push to the finding it opened first', () => {
    const first = ingestReviewComments([], [comment({})], CONTEXT);
    const repost = ingestReviewComments(
      first.findings,
      [comment({ commentId: '1001', threadId: 'PRRT_y' })],
      CONTEXT,
    );
    expect(repost.findings).toHaveLength(1);
    expect(repost.findings[0]?.reports.map((r) => r.commentId)).toEqual(['1000', '1001']);
  });

  it('takes an outdated comment, or one on another commit, in at file level', () => {
    const outdated = ingestReviewComments([], [comment({ line: null, startLine: null })], CONTEXT)
      .findings[0];
    expect(outdated?.anchor).toMatchObject({ startLine: null, endLine: null });
    const older = ingestReviewComments([], [comment({ commitId: sha('9') })], CONTEXT).findings[0];
    expect(older?.anchor).toMatchObject({ startLine: null, endLine: null, file: 'src/app.ts' });
  });

  it('records a person comment outside the diff as not inline-commentable', () => {
    const finding = ingestReviewComments(
      [],
      [comment({ author: ADA, path: 'src/other.ts', body: 'Rename this.' })],
      CONTEXT,
    ).findings[0];
    expect(finding).toMatchObject({ author: ADA, inDiff: false });
  });

  it('leaves Caravel own comments to the publish step and records replies on their thread', () => {
    const first = ingestReviewComments([], [comment({})], CONTEXT);
    const result = ingestReviewComments(
      first.findings,
      [
        comment({ commentId: '2000', author: { kind: 'caravel' } }),
        comment({
          commentId: '1002',
          inReplyToId: '1000',
          author: ADA,
          body: 'Fixed in the next push.',
        }),
      ],
      CONTEXT,
    );
    expect(result.outcomes).toEqual([
      { commentId: '2000', kind: 'own' },
      { commentId: '1002', kind: 'reply', findingId: first.findings[0]?.id },
    ]);
    expect(result.findings[0]).toMatchObject({
      recheck: ['ingested', 'reply'],
      interactions: [{ commentId: '1002' }],
    });
  });
});
