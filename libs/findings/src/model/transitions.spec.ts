import { describe, expect, it } from '@jest/globals';

import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { thrownReason } from '../testing/thrown.js';
import { findingSchema, type Finding } from './finding.model.js';
import {
  confirmFinding,
  dismissFinding,
  markResolutionPosted,
  markSurfaced,
  markSurfaceError,
  markThreadResolved,
  pendingSurfaceWork,
  reopenFinding,
  resolveFinding,
  reviseFinding,
} from './transitions.js';

const T1 = '2026-03-02T10:00:00.000Z';
const ADA = { kind: 'person', login: 'ada' } as const;

const surfaced = (finding: Finding = aFinding()): Finding =>
  markSurfaced(finding, {
    reviewId: '11',
    commentId: '22',
    threadId: 'PRRT_1',
    sha: sha('a'),
    threshold: 'medium',
    at: T0,
  });

const withReply = (finding: Finding): Finding => ({
  ...finding,
  recheck: ['reply'],
  interactions: [
    {
      kind: 'human_reply',
      commentId: '30',
      inReplyToId: '22',
      author: ADA,
      body: 'Is it?',
      createdAt: T0,
      needsReassessment: true,
    },
  ],
});

describe('resolving and dismissing', () => {
  it('resolves by a later commit with the note, settling recheck and replies', () => {
    const resolved = resolveFinding(withReply(aFinding()), {
      sha: sha('b'),
      note: ' Bounds are checked now. ',
      at: T1,
    });
    expect(findingSchema.parse(resolved)).toEqual(resolved);
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolution: {
        kind: 'fixed_by_commit',
        sha: sha('b'),
        note: 'Bounds are checked now.',
        by: { kind: 'caravel' },
      },
      recheck: [],
      interactions: [{ needsReassessment: false }],
      updatedAt: T1,
    });
  });

  it('refuses a fix at the commit the finding was found at: that is a dismissal', () => {
    expect(
      thrownReason(() => resolveFinding(aFinding(), { sha: sha('a'), note: 'x', at: T1 })),
    ).toBe('not_fixed_by_commit');
  });

  it('keeps a person dismissal apart from a fix', () => {
    const dismissed = dismissFinding(aFinding(), {
      sha: sha('a'),
      note: 'Intended.',
      by: ADA,
      at: T1,
    });
    expect(dismissed).toMatchObject({
      status: 'dismissed',
      resolution: { kind: 'dismissed', by: ADA, note: 'Intended.' },
    });
  });

  it('requires a note, which is posted verbatim', () => {
    expect(
      thrownReason(() =>
        dismissFinding(aFinding(), { sha: sha('a'), note: '  ', by: ADA, at: T1 }),
      ),
    ).toBe('invalid_input');
  });

  it('refuses to close a finding twice', () => {
    const dismissed = dismissFinding(aFinding(), { sha: sha('a'), note: 'No.', by: ADA, at: T1 });
    expect(
      thrownReason(() => resolveFinding(dismissed, { sha: sha('b'), note: 'x', at: T1 })),
    ).toBe('invalid_transition');
  });

  it('asks for the thread of a published finding to be resolved, note first', () => {
    const closed = resolveFinding(surfaced(), { sha: sha('b'), note: 'Fixed.', at: T1 });
    expect(closed.surface.state).toBe('resolve_pending');
    expect(pendingSurfaceWork(closed)).toBe('post_resolution_note');
    const noted = markResolutionPosted(closed, { commentId: '40', at: T1 });
    expect(pendingSurfaceWork(noted)).toBe('resolve_thread');
    expect(markResolutionPosted(noted, { commentId: '40', at: T1 })).toBe(noted);
    const done = markThreadResolved(noted, T1);
    expect([done.surface.state, pendingSurfaceWork(done)]).toEqual(['resolved', null]);
  });

  it('leaves no thread to resolve for a finding published in a review body', () => {
    const listed = markSurfaced(aFinding(), {
      reviewId: '11',
      commentId: null,
      sha: sha('a'),
      at: T0,
    });
    expect(pendingSurfaceWork(listed)).toBeNull();
    const closed = resolveFinding(listed, { sha: sha('b'), note: 'Fixed.', at: T1 });
    expect([closed.surface.state, pendingSurfaceWork(closed)]).toEqual(['surfaced', null]);
  });

  it('leaves nothing to do on the SCM for an unpublished finding that closes', () => {
    const closed = dismissFinding(aFinding(), { sha: sha('a'), note: 'No.', by: ADA, at: T1 });
    expect([closed.surface.state, pendingSurfaceWork(closed)]).toEqual(['not_surfaced', null]);
  });
});

describe('surface', () => {
  it('publishes only open findings of Caravel that have no comment yet', () => {
    expect(pendingSurfaceWork(aFinding())).toBe('publish');
    expect(pendingSurfaceWork(surfaced())).toBeNull();
    expect(pendingSurfaceWork(aFinding({ author: ADA }))).toBeNull();
  });

  it('records the comment once, and again after an error', () => {
    const once = surfaced();
    expect(once.surface).toMatchObject({
      state: 'surfaced',
      reviewId: '11',
      commentId: '22',
      threadId: 'PRRT_1',
      severityThresholdAtPublish: 'medium',
    });
    expect(surfaced(once)).toBe(once);
    const failed = markSurfaceError(once, { error: 'HTTP 502', at: T1 });
    expect(failed.surface).toMatchObject({ state: 'error', lastError: 'HTTP 502' });
    expect(surfaced(failed).surface).toMatchObject({ state: 'surfaced', lastError: null });
  });
});

describe('confirm, reopen, revise', () => {
  it('confirms at a sha, settling recheck and replies; a second identical confirm changes nothing', () => {
    const confirmed = confirmFinding(withReply(aFinding()), { sha: sha('b'), at: T1 });
    expect(confirmed).toMatchObject({
      lastConfirmedSha: sha('b'),
      recheck: [],
      interactions: [{ needsReassessment: false }],
    });
    expect(confirmFinding(confirmed, { sha: sha('b'), at: T1 })).toBe(confirmed);
  });

  it('reopens a closed finding to be published anew, or on its still unresolved thread', () => {
    const dismissed = dismissFinding(aFinding(), { sha: sha('a'), note: 'No.', by: ADA, at: T1 });
    const reopened = reopenFinding(dismissed, { sha: sha('c'), at: T1 });
    expect(reopened).toMatchObject({
      status: 'open',
      resolution: null,
      lastConfirmedSha: sha('c'),
    });
    expect(findingSchema.parse(reopened)).toEqual(reopened);
    const pending = resolveFinding(surfaced(), { sha: sha('b'), note: 'Fixed.', at: T1 });
    expect(reopenFinding(pending, { sha: sha('c'), at: T1 }).surface).toMatchObject({
      state: 'surfaced',
      commentId: '22',
    });
    const resolvedThread = markThreadResolved(pending, T1);
    expect(reopenFinding(resolvedThread, { sha: sha('c'), at: T1 }).surface).toMatchObject({
      state: 'not_surfaced',
      commentId: null,
    });
    expect(thrownReason(() => reopenFinding(aFinding(), { sha: sha('c'), at: T1 }))).toBe(
      'invalid_transition',
    );
  });

  it('revises an open finding; a new description makes a new fingerprint, a severity change does not', () => {
    const finding = aFinding();
    expect(reviseFinding(finding, { severity: 'medium' }, T1)).toBe(finding);
    const severe = reviseFinding(finding, { severity: 'critical' }, T1);
    expect([severe.severity, severe.fingerprint]).toEqual(['critical', finding.fingerprint]);
    const reworded = reviseFinding(finding, { description: 'Another explanation.' }, T1);
    expect(reworded.fingerprint).not.toBe(finding.fingerprint);
    expect(thrownReason(() => reviseFinding(finding, { title: '' }, T1))).toBe('invalid_input');
  });
});
