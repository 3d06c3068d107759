import { reviewEvalTotals, type ReviewEvalCase, type ReviewEvalResult } from './review-result.js';
import {
  candidatePairs,
  placeMatches,
  scoreCase,
  scoresOf,
  totalScores,
  type ScoredFinding,
} from './review-score.js';
import { parseReviewSet, type ExpectedDefect } from './review-set.js';
import { reviewEvalTable } from './review-table.js';

const defect = (file: string, startLine?: number, endLine?: number): ExpectedDefect => ({
  file,
  side: 'RIGHT',
  ...(startLine === undefined ? {} : { startLine }),
  ...(endLine === undefined ? {} : { endLine }),
});

const finding = (
  id: string,
  file: string,
  startLine: number | null,
  endLine: number | null = null,
  severity: ScoredFinding['severity'] = 'high',
): ScoredFinding => ({ id, file, startLine, endLine, side: 'RIGHT', severity });

describe('placeMatches', () => {
  it('matches the same file and overlapping lines, within the tolerance', () => {
    const d = defect('src/a.ts', 10, 12);
    expect(placeMatches(d, finding('f', 'src/a.ts', 12, 14))).toBe(true);
    expect(placeMatches(d, finding('f', './src/a.ts', 9, 10))).toBe(true);
    expect(placeMatches(d, finding('f', 'src/a.ts', 13))).toBe(false);
    expect(placeMatches(d, finding('f', 'src/a.ts', 14), 2)).toBe(true);
    expect(placeMatches(d, finding('f', 'src/a.ts', 7, 8), 2)).toBe(true);
    expect(placeMatches(d, finding('f', 'src/a.ts', 15), 2)).toBe(false);
    expect(placeMatches(d, finding('f', 'src/b.ts', 10))).toBe(false);
    expect(placeMatches(d, { ...finding('f', 'src/a.ts', 10), side: 'LEFT' })).toBe(false);
  });

  it('takes a file-level defect for any finding in its file, a file-level finding for no line', () => {
    expect(placeMatches(defect('src/a.ts'), finding('f', 'src/a.ts', 40))).toBe(true);
    expect(placeMatches(defect('src/a.ts'), finding('f', 'src/a.ts', null))).toBe(true);
    expect(placeMatches(defect('src/a.ts', 3), finding('f', 'src/a.ts', null))).toBe(false);
  });
});

describe('scoreCase', () => {
  it('counts a second finding on a matched defect as a false positive', () => {
    const score = scoreCase(
      [defect('a.ts', 5), defect('a.ts', 20)],
      [finding('f1', 'a.ts', 5), finding('f2', 'a.ts', 5, 6), finding('f3', 'b.ts', 1)],
    );
    expect(score).toMatchObject({ expected: 2, found: 3, matched: 1 });
    expect(score.precision).toBeCloseTo(1 / 3);
    expect(score.recall).toBe(0.5);
    expect(score.f1).toBeCloseTo(0.4);
    expect(score.missed).toEqual([1]);
    expect(score.falsePositives).toEqual(['f2', 'f3']);
  });

  it('finds the largest matching, not the first one that fits', () => {
    // f1 overlaps both defects, f2 only the first: greedy f1→d0 would leave d1 unmatched.
    const score = scoreCase(
      [defect('a.ts', 10, 12), defect('a.ts', 14, 15)],
      [finding('f1', 'a.ts', 12, 14), finding('f2', 'a.ts', 10)],
    );
    expect(score.matches).toEqual([
      { defect: 0, finding: 'f2' },
      { defect: 1, finding: 'f1' },
    ]);
    expect(score).toMatchObject({ matched: 2, precision: 1, recall: 1, f1: 1 });
  });

  it('leaves findings under the minimum severity out, and listens to the judge', () => {
    const findings = [finding('f1', 'a.ts', 5, null, 'low'), finding('f2', 'a.ts', 5)];
    const floor = scoreCase([defect('a.ts', 5)], findings, { minSeverity: 'medium' });
    expect(floor).toMatchObject({ found: 1, matched: 1, ignored: ['f1'] });
    expect(candidatePairs([defect('a.ts', 5)], findings)).toEqual([
      { defect: 0, finding: 'f1' },
      { defect: 0, finding: 'f2' },
    ]);
    const judged = scoreCase([defect('a.ts', 5)], findings, { accept: (_, id) => id === 'f1' });
    expect(judged.matches).toEqual([{ defect: 0, finding: 'f1' }]);
    const refused = scoreCase([defect('a.ts', 5)], findings, { accept: () => false });
    expect(refused).toMatchObject({ matched: 0, precision: 0, recall: 0, f1: 0 });
  });

  it('has no precision without findings and no recall without defects', () => {
    expect(scoreCase([defect('a.ts', 1)], [])).toMatchObject({
      precision: null,
      recall: 0,
      f1: null,
    });
    expect(scoreCase([], [finding('f', 'a.ts', 1)])).toMatchObject({
      precision: 0,
      recall: null,
      falsePositives: ['f'],
    });
  });

  it('sums cases before dividing (micro average)', () => {
    expect(totalScores([scoresOf(2, 2, 2), scoresOf(1, 3, 0), scoresOf(0, 1, 0)])).toEqual(
      scoresOf(3, 6, 2),
    );
    expect(scoresOf(3, 6, 2)).toMatchObject({ precision: 1 / 3, recall: 2 / 3 });
  });
});

describe('parseReviewSet', () => {
  const good = {
    repository: 'repo',
    cases: [
      { id: 'a', base: 'main', head: 'fix', defects: [{ file: 'x.ts', startLine: 3 }] },
      { id: 'b', repository: '../other', base: 'main', patch: 'b.diff', defects: [] },
    ],
  };

  it("settles each case's repository and names the set", () => {
    const set = parseReviewSet(good, 'review-set.json', 'sample');
    expect(set.name).toBe('sample');
    expect(set.cases.map((c) => c.repository)).toEqual(['repo', '../other']);
    expect(set.cases[0]?.defects[0]).toEqual({ file: 'x.ts', startLine: 3, side: 'RIGHT' });
  });

  it.each([
    [{ cases: [] }, 'cases: a set needs at least one case'],
    [
      { cases: [{ id: 'a', base: 'm', head: 'h', defects: [] }] },
      'cases.0.repository: no repository',
    ],
    [{ ...good, cases: [good.cases[0], good.cases[0]] }, 'cases.1.id: a twice'],
    [
      { ...good, cases: [{ id: 'a', base: 'm', head: 'h', patch: 'p', defects: [] }] },
      'cases.0.head: a case has a head or a patch',
    ],
    [
      {
        ...good,
        cases: [
          { id: 'a', base: 'm', head: 'h', defects: [{ file: 'x', startLine: 5, endLine: 2 }] },
        ],
      },
      'cases.0.defects.0.endLine: endLine is before startLine',
    ],
    [{ ...good, extra: 1 }, '(top level): Unrecognized key'],
    [
      { ...good, cases: [{ id: 'a..b', base: 'm', head: 'h', defects: [] }] },
      "cases.0.id: no '..' and no '.lock' at the end",
    ],
    // Handed to git as arguments: `git fetch origin --upload-pack=<cmd>` runs <cmd> on this host.
    [
      { ...good, cases: [{ id: 'a', base: '--upload-pack=touch /tmp/x', head: 'h', defects: [] }] },
      "cases.0.base: may not start with '-'",
    ],
    [
      { ...good, cases: [{ id: 'a', base: 'm', head: '-uevil', defects: [] }] },
      "cases.0.head: may not start with '-'",
    ],
    [{ ...good, repository: '--upload-pack=x' }, "repository: may not start with '-'"],
  ])('refuses a bad set in one line naming the field (%#)', (raw, message) => {
    expect(() => parseReviewSet(raw, 'set.json', 's')).toThrow(`set.json: ${message}`);
  });
});

describe('reviewEvalTable', () => {
  const reviewed = (id: string, score: ReturnType<typeof scoreCase>): ReviewEvalCase => ({
    id,
    baseSha: 'b',
    headSha: 'h',
    defects: [defect('a.ts', 5), defect('a.ts', 20)],
    findings: [
      {
        ...finding('f1', 'a.ts', 5),
        confidence: 'high',
        category: 'bug',
        title: 'One',
        description: 'd',
      },
      {
        ...finding('f3', 'b.ts', 1),
        confidence: 'low',
        category: 'bug',
        title: 'Wrong',
        description: 'd',
      },
    ],
    judged: [],
    score,
    modelCalls: 3,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    wallMs: 1500,
  });

  it('shows a row per case, the totals, and what was missed or wrong', () => {
    const score = scoreCase(
      [defect('a.ts', 5), defect('a.ts', 20)],
      [finding('f1', 'a.ts', 5), finding('f3', 'b.ts', 1)],
    );
    const cases = [
      reviewed('one', score),
      { ...reviewed('broken', score), score: null, error: 'no such ref: nope' },
    ];
    const result: ReviewEvalResult = {
      version: 1,
      set: 'sample',
      model: 'scripted:r.yaml',
      judge: null,
      tolerance: 0,
      minSeverity: 'low',
      createdAt: '2026-12-01T00:00:00Z',
      cases,
      totals: reviewEvalTotals(cases),
    };
    const table = reviewEvalTable(result);
    expect(table).toContain('sample: 2 case(s), model scripted:r.yaml, tolerance 0 line(s)');
    expect(table).toMatch(/^one\s+2\s+2\s+1\s+50\.0%\s+50\.0%\s+50\.0%\s+3\s+1\.5 s$/m);
    expect(table).toMatch(/^broken(\s+-){8}$/m);
    expect(table).toMatch(/^all\s+2\s+2\s+1\s+50\.0%\s+50\.0%\s+50\.0%\s+6\s+3\.0 s$/m);
    expect(table).toContain('one: missed a.ts:20');
    expect(table).toContain('one: false positive b.ts:1 "Wrong"');
    expect(table).toContain('broken: not reviewed: no such ref: nope');
  });
});
