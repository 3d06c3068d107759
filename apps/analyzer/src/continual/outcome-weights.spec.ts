import type { FindingOutcomeRow } from '@caravel/db';
import type { ReactionTally, WeighedOutcome } from './finding-reactions.js';
import { findingVerdict, weighOutcomes } from './outcome-weights.js';

const outcome = (
  category: string,
  resolution: 'fixed_by_commit' | 'dismissed' | 'code_removed' | null,
  reactions?: Partial<ReactionTally>,
): WeighedOutcome => {
  const row: FindingOutcomeRow = {
    id: `f_${Math.random().toString(16).slice(2, 12)}`,
    number: 3,
    category,
    severity: 'medium',
    title: 't',
    status: resolution === null ? 'open' : resolution === 'dismissed' ? 'dismissed' : 'resolved',
    resolution: resolution === null ? null : { kind: resolution },
    interactions: [],
    updatedAt: new Date('2026-12-01T00:00:00Z'),
  };
  return reactions ? { ...row, reactions: { up: [], down: [], ...reactions } } : row;
};

describe('findingVerdict: what one outcome says', () => {
  it.each([
    ['fixed by a commit', outcome('c', 'fixed_by_commit'), 'confirmed'],
    ['dismissed', outcome('c', 'dismissed'), 'rejected'],
    ['open, more 👍 than 👎', outcome('c', null, { up: ['a', 'b'], down: ['c'] }), 'confirmed'],
    ['open, more 👎 than 👍', outcome('c', null, { down: ['a'] }), 'rejected'],
    ['open, as many 👍 as 👎', outcome('c', null, { up: ['a'], down: ['b'] }), 'unclear'],
    ['fixed, and 👍', outcome('c', 'fixed_by_commit', { up: ['a'] }), 'confirmed'],
    ['dismissed, and 👎', outcome('c', 'dismissed', { down: ['a'] }), 'rejected'],
    ['fixed, yet 👎', outcome('c', 'fixed_by_commit', { down: ['a'] }), 'mixed'],
    ['dismissed, yet 👍', outcome('c', 'dismissed', { up: ['a'] }), 'mixed'],
    ['its code removed', outcome('c', 'code_removed'), 'unclear'],
    ['only replied to', outcome('c', null), 'unclear'],
  ] as const)('%s: %s', (_name, given, verdict) => {
    expect(findingVerdict(given)).toBe(verdict);
  });
});

describe('weighOutcomes: the promote/demote decision per category', () => {
  it('promotes what was confirmed more often, demotes what was rejected more often, holds a tie', () => {
    const weights = weighOutcomes([
      outcome('security', 'fixed_by_commit'),
      outcome('security', null, { up: ['alice'] }),
      outcome('security', 'dismissed'),
      outcome('naming', 'dismissed'),
      outcome('naming', null, { down: ['bob', 'carol'] }),
      outcome('tests', 'fixed_by_commit'),
      outcome('tests', 'dismissed'),
      outcome('docs', null),
    ]);
    expect(weights).toEqual([
      { category: 'security', verdict: 'promote', confirmed: 2, rejected: 1 },
      { category: 'naming', verdict: 'demote', confirmed: 0, rejected: 2 },
      { category: 'tests', verdict: 'hold', confirmed: 1, rejected: 1 },
      { category: 'docs', verdict: 'hold', confirmed: 0, rejected: 0 },
    ]);
  });

  it('holds a category whose only outcome is mixed (fixed, yet people 👎 it)', () => {
    expect(weighOutcomes([outcome('perf', 'fixed_by_commit', { down: ['a', 'b'] })])).toEqual([
      { category: 'perf', verdict: 'hold', confirmed: 0, rejected: 0 },
    ]);
  });

  it('weighs nothing without outcomes', () => {
    expect(weighOutcomes([])).toEqual([]);
  });
});
