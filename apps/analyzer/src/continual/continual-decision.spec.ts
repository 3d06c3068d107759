import type { FindingOutcomeRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { decideContinual } from './continual-decision.js';

const style = factory.reviewStyle({ version: 1, prompt: 'Be strict.' });
const fixed: FindingOutcomeRow = {
  id: 'f_0000000001',
  number: 7,
  category: 'correctness',
  severity: 'high',
  title: 'Off by one',
  status: 'resolved',
  resolution: { kind: 'fixed_by_commit' },
  interactions: [],
  updatedAt: new Date('2026-12-01T00:00:00Z'),
};

describe('the continual decision', () => {
  it('asks nothing and saves nothing when no outcome arrived since the latest version', () => {
    expect(decideContinual(style, [])).toEqual({ run: false, reason: 'no_outcomes' });
  });

  it('asks nothing before a bootstrap, whatever the outcomes', () => {
    expect(decideContinual(null, [fixed])).toEqual({ run: false, reason: 'no_bootstrap' });
  });

  it("runs on people's 👍/👎 on a finding still open", () => {
    const reacted = {
      ...fixed,
      status: 'open',
      resolution: null,
      reactions: { up: [], down: ['bob'] },
    };
    expect(decideContinual(style, [reacted])).toMatchObject({ run: true, outcomes: [reacted] });
  });

  it('runs on the outcomes against the current style', () => {
    expect(decideContinual(style, [fixed])).toEqual({
      run: true,
      current: style,
      outcomes: [fixed],
    });
  });
});
