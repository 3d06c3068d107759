import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { changedLineSet, type ChangedLineSet } from '../diff/changed-lines.js';
import { parseUnifiedDiff, type DiffFile } from '../diff/unified-diff.js';
import { findingSchema, type Finding } from '../model/finding.model.js';
import { markSurfaced } from '../model/transitions.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { createGitRepo, type GitRepo } from '../testing/git-repo.js';
import { thrownReason } from '../testing/thrown.js';
import { reanchorFinding, reconcileFindings, type ReconcileInput } from './reconcile.js';

const T1 = '2026-03-02T10:00:00.000Z';
const rows = (from: number, to: number, label: string): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `${label} ${from + i}`);
const text = (lines: string[]): string => `${lines.join('\n')}\n`;
const anchor = (
  file: string,
  startLine: number | null,
  endLine: number | null,
  at: string,
  side: 'LEFT' | 'RIGHT' = 'RIGHT',
) => ({
  file,
  startLine,
  endLine,
  side,
  sha: at,
});

describe('reconcileFindings across a push (diffs made by real git)', () => {
  let repo: GitRepo;
  let reviewed: string;
  let head: string;
  let input: Omit<ReconcileInput, 'findings'>;
  const ledger: Record<string, Finding> = {};

  beforeAll(() => {
    repo = createGitRepo();
    const base = repo.commit('base', {
      'app.ts': text(rows(1, 40, 'app')),
      'util.ts': text(rows(1, 20, 'util')),
      'gone.ts': text(rows(1, 10, 'gone')),
    });
    // The pull request as reviewed: app 10-12 and 30 changed, util 5 changed, gone 3 changed.
    reviewed = repo.commit('pr', {
      'app.ts': text([
        ...rows(1, 9, 'app'),
        'pr 10',
        'pr 11',
        'pr 12',
        ...rows(13, 29, 'app'),
        'pr 30',
        ...rows(31, 40, 'app'),
      ]),
      'util.ts': text([...rows(1, 4, 'util'), 'pr 5', ...rows(6, 20, 'util')]),
      'gone.ts': text([...rows(1, 2, 'gone'), 'pr 3', ...rows(4, 10, 'gone')]),
    });
    // The push: two lines on top of app, app 30 edited again, util 5 back as on base, gone deleted.
    head = repo.commit(
      'push',
      {
        'app.ts': text([
          'import 1',
          'import 2',
          ...rows(1, 9, 'app'),
          'pr 10',
          'pr 11',
          'pr 12',
          ...rows(13, 29, 'app'),
          'pr 30 fixed',
          ...rows(31, 40, 'app'),
        ]),
        'util.ts': text(rows(1, 20, 'util')),
      },
      ['gone.ts'],
    );
    const interDiff: DiffFile[] = parseUnifiedDiff(repo.diff(reviewed, head));
    const changedLines: ChangedLineSet = changedLineSet(repo.diff(base, head));
    input = { fromSha: reviewed, toSha: head, interDiff, changedLines, at: T1 };
    const filed = (overrides: Partial<Finding>): Finding =>
      aFinding({ firstSeenSha: reviewed, ...overrides });
    ledger['moved'] = filed({ file: 'app.ts', anchor: anchor('app.ts', 10, 12, reviewed) });
    ledger['edited'] = filed({
      file: 'app.ts',
      startLine: 30,
      endLine: 30,
      anchor: anchor('app.ts', 30, 30, reviewed),
    });
    ledger['deleted'] = markSurfaced(
      filed({
        file: 'gone.ts',
        startLine: 3,
        endLine: 3,
        anchor: anchor('gone.ts', 3, 3, reviewed),
      }),
      {
        reviewId: '1',
        commentId: '2',
        sha: reviewed,
        threshold: 'medium',
        at: T0,
      },
    );
    ledger['reverted'] = filed({
      file: 'util.ts',
      startLine: 5,
      endLine: 5,
      anchor: anchor('util.ts', 5, 5, reviewed),
    });
    ledger['dismissed'] = filed({
      file: 'app.ts',
      anchor: anchor('app.ts', 10, 12, reviewed),
      status: 'dismissed',
      resolution: {
        kind: 'dismissed',
        sha: reviewed,
        note: 'Intended.',
        by: { kind: 'person', login: 'ada' },
        at: T0,
      },
    });
    ledger['left'] = filed({
      file: 'app.ts',
      side: 'LEFT',
      startLine: 11,
      endLine: 11,
      anchor: anchor('app.ts', 11, 11, reviewed, 'LEFT'),
    });
    ledger['elsewhere'] = filed({ anchor: anchor('src/app.ts', 10, 12, sha('e')) });
  });

  afterAll(() => repo.remove());

  const run = () => reconcileFindings({ ...input, findings: Object.values(ledger) });
  const after = (key: string): Finding =>
    run().findings.find((f) => f.id === ledger[key]?.id) as Finding;

  it('re-anchors intact lines that moved, without asking for a re-check', () => {
    expect(after('moved')).toMatchObject({
      anchor: anchor('app.ts', 12, 14, head),
      inDiff: true,
      recheck: [],
      status: 'open',
    });
    expect(after('moved').startLine).toBe(10);
    expect(after('moved').fingerprint).toBe(ledger['moved']?.fingerprint);
  });

  it('marks a finding whose lines the push changed for a re-check', () => {
    expect(after('edited')).toMatchObject({
      anchor: anchor('app.ts', 32, 32, head),
      recheck: ['lines_changed'],
      status: 'open',
    });
  });

  it('resolves a finding whose code was deleted, by that commit, and asks for its thread to be resolved', () => {
    const finding = after('deleted');
    expect(finding).toMatchObject({
      status: 'resolved',
      resolution: { kind: 'code_removed', sha: head, at: T1 },
      surface: { state: 'resolve_pending', commentId: '2' },
      inDiff: false,
    });
    expect(findingSchema.parse(finding)).toEqual(finding);
  });

  it('marks lines the pull request no longer changes as out of the diff', () => {
    expect(after('reverted')).toMatchObject({
      inDiff: false,
      recheck: ['lines_changed', 'no_longer_in_diff'],
    });
  });

  it('moves a dismissed finding with its code but keeps the dismissal as it was', () => {
    expect(after('dismissed')).toMatchObject({
      status: 'dismissed',
      resolution: { kind: 'dismissed', by: { kind: 'person', login: 'ada' } },
      anchor: anchor('app.ts', 12, 14, head),
      recheck: [],
    });
  });

  it('keeps LEFT anchors when the base did not move', () => {
    expect(after('left')).toMatchObject({
      anchor: anchor('app.ts', 11, 11, head, 'LEFT'),
      inDiff: true,
      recheck: [],
    });
  });

  it('reports findings anchored at another commit instead of guessing', () => {
    const result = run();
    expect(result.unmapped).toEqual([ledger['elsewhere']?.id]);
    expect(result.findings.find((f) => f.id === ledger['elsewhere']?.id)).toBe(ledger['elsewhere']);
  });

  it('says what happened to each finding and returns only the changed rows', () => {
    const result = run();
    expect(result.changes.find((c) => c.findingId === ledger['deleted']?.id)).toMatchObject({
      move: 'deleted',
      resolved: true,
    });
    expect(result.changes.find((c) => c.findingId === ledger['edited']?.id)).toMatchObject({
      move: 'rewritten',
      recheck: ['lines_changed'],
    });
    expect(result.changed.map((f) => f.id)).not.toContain(ledger['elsewhere']?.id);
    expect(result.changed).toHaveLength(6);
  });

  it('changes nothing when reconciled again with the same head', () => {
    const once = run();
    const twice = reconcileFindings({ ...input, findings: once.findings });
    expect(twice.changed).toEqual([]);
    expect(twice.findings).toEqual(once.findings);
  });
});

describe('reanchorFinding', () => {
  const set = changedLineSet(
    ['--- a/src/app.ts', '+++ b/src/app.ts', '@@ -1,3 +1,4 @@', ' a', '+b', ' c', ' d', ''].join(
      '\n',
    ),
  );
  const finding = aFinding({ inDiff: false, recheck: ['no_longer_in_diff', 'reply'] });

  it('moves an open finding to a commentable range and clears the out-of-diff mark', () => {
    const moved = reanchorFinding(
      finding,
      { file: 'src/app.ts', startLine: 2, endLine: 3, side: 'RIGHT' },
      { sha: sha('b'), changedLines: set, at: T1 },
    );
    expect(moved).toMatchObject({
      anchor: anchor('src/app.ts', 2, 3, sha('b')),
      inDiff: true,
      recheck: ['reply'],
    });
  });

  it('refuses a range outside the diff', () => {
    const run = () =>
      reanchorFinding(
        finding,
        { file: 'src/app.ts', startLine: 9, endLine: 9, side: 'RIGHT' },
        { sha: sha('b'), changedLines: set, at: T1 },
      );
    expect(thrownReason(run)).toBe('anchor_not_commentable');
  });
});
