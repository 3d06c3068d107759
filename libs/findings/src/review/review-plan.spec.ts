import { describe, expect, it } from '@jest/globals';

import type { Finding } from '../model/finding.model.js';
import { markSurfaced } from '../model/transitions.js';
import { PR_LINES } from '../testing/diffs.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { parseFindingMarker, parseReviewMarker } from './markers.js';
import { isAnchorRejection, planReview, type ReviewPlanInput } from './review-plan.js';

const HEAD = sha('a');
const plan = (findings: Finding[], overrides: Partial<ReviewPlanInput> = {}) =>
  planReview({
    pullRequest: 7,
    headSha: HEAD,
    findings,
    changedLines: PR_LINES,
    verdict: { verdictRequested: false, ownPullRequest: false, approveCleanReviews: false },
    existingSummary: 'absent',
    ...overrides,
  });
const at = (startLine: number | null, endLine: number | null = startLine) => ({
  startLine,
  endLine,
  anchor: { file: 'src/app.ts', startLine, endLine, side: 'RIGHT' as const, sha: HEAD },
});

describe('planReview', () => {
  it('posts one COMMENT review with an inline comment per finding, GitHub fields included', () => {
    const range = aFinding({ severity: 'high', ...at(10, 12) });
    const single = aFinding({ severity: 'high', ...at(15) });
    const result = plan([range, single]);
    expect(result.action).toBe('post');
    expect(result.payload).toMatchObject({ commit_id: HEAD, event: 'COMMENT' });
    expect(result.payload?.comments.map(({ body: _body, ...rest }) => rest)).toEqual([
      { path: 'src/app.ts', line: 12, side: 'RIGHT', start_line: 10, start_side: 'RIGHT' },
      { path: 'src/app.ts', line: 15, side: 'RIGHT' },
    ]);
    expect(result.payload?.comments.map((c) => parseFindingMarker(c.body)?.id)).toEqual([
      range.id,
      single.id,
    ]);
    expect(parseReviewMarker(result.payload?.body ?? '')).toEqual({
      v: 1,
      pr: 7,
      head: HEAD,
      threshold: 'medium',
      findings: [range.id, single.id],
    });
  });

  it('sorts by severity, then file and line, caps at 6 and counts the rest in the body', () => {
    const findings = [
      ...Array.from({ length: 6 }, (_, i) => aFinding({ severity: 'medium', ...at(13 + i) })),
      aFinding({ severity: 'critical', ...at(20) }),
      aFinding({ severity: 'low', ...at(9) }),
      aFinding({ severity: 'low', ...at(8) }),
    ];
    const result = plan(findings);
    expect(result.inline).toEqual([findings[6], ...findings.slice(0, 5)].map((f) => f?.id));
    expect(result.overCap).toEqual([findings[5]?.id]);
    expect(result.belowThreshold).toEqual([findings[8]?.id, findings[7]?.id]);
    expect(result.payload?.body).toContain('6 potential issues (1 critical, 5 medium)');
    expect(result.payload?.body).toContain(
      '3 more findings not posted: 2 below the medium threshold (2 low), 1 over the limit of 6 per review (1 medium).',
    );
  });

  it('lists file-level findings in the body, never inline', () => {
    const whole = aFinding({
      severity: 'high',
      title: 'No tests for the parser',
      description: 'Nothing covers it.\nMore.',
      ...at(null),
    });
    const result = plan([whole]);
    expect(result).toMatchObject({ inline: [], inBody: [whole.id] });
    expect(result.payload?.comments).toEqual([]);
    expect(result.payload?.body).toContain(
      '- 🟠 **No tests for the parser** (`src/app.ts`): Nothing covers it.',
    );
  });

  it('publishes only Caravel findings that are open, unpublished, and anchored and confirmed at this head', () => {
    const ok = aFinding({ ...at(10) });
    const others = [
      aFinding({ ...at(11), author: { kind: 'bot', login: 'cursor[bot]', bot: 'bugbot' } }),
      markSurfaced(aFinding({ ...at(12) }), { reviewId: '1', commentId: '2', sha: HEAD, at: T0 }),
      aFinding({ ...at(13), lastConfirmedSha: sha('0') }),
      aFinding({
        ...at(14),
        anchor: { file: 'src/app.ts', startLine: 14, endLine: 14, side: 'RIGHT', sha: sha('0') },
      }),
      aFinding({
        ...at(15),
        status: 'resolved',
        resolution: { kind: 'code_removed', sha: HEAD, at: T0 },
      }),
    ];
    expect(plan([ok, ...others]).inline).toEqual([ok.id]);
  });

  it('holds back a finding GitHub would refuse at this head and says why', () => {
    const moved = aFinding({ ...at(30) });
    const result = plan([moved]);
    expect(result.inline).toEqual([]);
    expect(result.unanchorable).toMatchObject([{ findingId: moved.id, reason: 'outside_diff' }]);
  });

  it('posts a clean first review, and skips an empty re-review', () => {
    const first = plan([]);
    expect(first.action).toBe('post');
    expect(first.payload?.body).toContain('✅ **Caravel** reviewed `aaaaaaa`: no issues found.');
    expect(plan([], { existingSummary: 'present' })).toMatchObject({
      action: 'skip',
      skipReason: 'empty_re_review',
      payload: null,
    });
    expect(plan([], { existingSummary: 'unknown' })).toMatchObject({
      action: 'skip',
      skipReason: 'summary_lookup_failed',
    });
  });

  it('still posts a re-review with nothing new when its verdict is an approval', () => {
    const result = plan([], {
      existingSummary: 'present',
      verdict: { verdictRequested: false, ownPullRequest: false, approveCleanReviews: true },
    });
    expect(result.payload?.event).toBe('APPROVE');
    expect(result.payload?.body).toContain('Approved: no finding is open.');
  });

  it('mentions findings still open from earlier reviews and other reviewers', () => {
    const earlier = markSurfaced(aFinding({ ...at(11) }), {
      reviewId: '1',
      commentId: '2',
      sha: HEAD,
      at: T0,
    });
    const fresh = aFinding({ ...at(12) });
    expect(plan([earlier, fresh]).payload?.body).toContain(
      'Also open: 1 finding from earlier reviews or other reviewers.',
    );
    expect(plan([earlier], { existingSummary: 'absent' }).payload?.body).toContain(
      'no new issues; 1 finding still open.',
    );
  });

  it('lists every finding in the body when asked for a summary-only review', () => {
    const line = aFinding({
      severity: 'high',
      title: 'Unchecked index',
      description: 'Reads past the end.',
      ...at(10, 12),
    });
    const unplaceable = aFinding({ ...at(30) });
    const result = plan([line, unplaceable], { summaryOnly: true });
    expect(result).toMatchObject({
      inline: [],
      inBody: [line.id, unplaceable.id],
      unanchorable: [],
    });
    expect(result.payload?.comments).toEqual([]);
    expect(result.payload?.body).toContain(
      '- 🟠 **Unchecked index** (`src/app.ts`, lines 10-12): Reads past the end.',
    );
  });
});

describe('isAnchorRejection', () => {
  it('recognises the 422 messages GitHub gives for comments it cannot place, and nothing else', () => {
    expect(isAnchorRejection('Path could not be resolved')).toBe(true);
    expect(isAnchorRejection(['Line could not be resolved'])).toBe(true);
    expect(
      isAnchorRejection(
        'Pull request review thread line must be part of the diff, Pull request review thread start line must be part of the same hunk as the line.',
      ),
    ).toBe(true);
    expect(isAnchorRejection(['Review Can not approve your own pull request'])).toBe(false);
  });
});
