import type { EvalAttempt, EvalRun } from '../results/eval-run.js';
import { compareRuns } from './compare-runs.js';
import { DEFAULT_GATE_POLICY, gateNumbers, gateVerdict } from './regression-gate.js';
import { comparisonChart } from '../report/comparison-chart.js';
import { comparisonTable } from '../report/comparison-table.js';

const attempt = (resolved: boolean, n = 1): EvalAttempt => ({
  attempt: n,
  resolved,
  exitStatus: 'submitted',
  costUsd: 0.1,
  modelCalls: 5,
  inputTokens: 1000,
  outputTokens: 100,
  wallMs: 30_000,
  patch: resolved ? 'diff --git a/x b/x\n' : '',
});

/** A run over tasks t00..t(n-1), where `resolves(i, attempt)` says which attempts resolved. */
function run(id: string, n: number, resolves: (task: number, attempt: number) => boolean): EvalRun {
  return {
    runId: id,
    suite: 'acme',
    config: id === 'base' ? 'current' : 'candidate <b>',
    model: 'scripted',
    createdAt: '2026-12-01T00:00:00Z',
    tasks: Array.from({ length: n }, (_, i) => ({
      taskId: `t${String(i).padStart(2, '0')}`,
      attempts: [1, 2, 3].map((a) => attempt(resolves(i, a), a)),
    })),
  };
}

describe('compareRuns and the gate', () => {
  const baseline = run('base', 10, () => true);

  it('finds the lost tasks and refuses a configuration that breaks half the suite', () => {
    const broken = run('half', 10, (task) => task % 2 === 0);
    const comparison = compareRuns(baseline, broken);
    expect(comparison.tasks.filter((t) => t.flip === 'lost').map((t) => t.taskId)).toEqual([
      't01',
      't03',
      't05',
      't07',
      't09',
    ]);
    expect(comparison.delta).toBeCloseTo(-0.5, 10);
    expect(comparison.candidate.resolve).toMatchObject({ successes: 15, trials: 30 });
    const verdict = gateVerdict(comparison, DEFAULT_GATE_POLICY);
    expect(verdict.verdict).toBe('refuse');
    expect(verdict.reason).toContain('5 task(s) lost');
  });

  it('accepts an equal configuration and a small, insignificant drop', () => {
    expect(
      gateVerdict(
        compareRuns(
          baseline,
          run('same', 10, () => true),
        ),
        DEFAULT_GATE_POLICY,
      ),
    ).toMatchObject({ verdict: 'accept', delta: 0 });
    // One task lost of ten: ten points down, but one loss proves nothing.
    const oneLost = compareRuns(
      baseline,
      run('one', 10, (task) => task !== 3),
    );
    expect(gateVerdict(oneLost, DEFAULT_GATE_POLICY)).toMatchObject({ verdict: 'accept' });
  });

  it('counts a task by the majority of its attempts, and only tasks both runs attempted', () => {
    const flaky = run('flaky', 10, (task, a) => task !== 0 || a === 1);
    const comparison = compareRuns(baseline, { ...flaky, tasks: flaky.tasks.slice(0, 8) });
    expect(comparison.tasks.find((t) => t.taskId === 't00')).toMatchObject({
      candidate: 1 / 3,
      flip: 'lost',
    });
    expect(comparison.onlyInBaseline).toEqual(['t08', 't09']);
    expect(comparison.baseline.resolve.trials).toBe(24);
  });

  it('refuses when the runs share no task', () => {
    const other = { ...run('other', 2, () => true), tasks: [] };
    expect(gateVerdict(compareRuns(baseline, other), DEFAULT_GATE_POLICY).verdict).toBe('refuse');
  });

  it('renders a table with the flips and an SVG with user text escaped', () => {
    const comparison = compareRuns(
      baseline,
      run('half', 10, (task) => task % 2 === 0),
    );
    const table = comparisonTable(comparison);
    expect(table).toContain('lost (5): t01, t03, t05, t07, t09');
    expect(table).toMatch(/100\.0% \[/);
    const svg = comparisonChart(comparison);
    expect(svg).toContain('candidate &lt;b&gt;');
    expect(svg).not.toContain('<b>');
    expect(svg.match(/<title>/g)).toHaveLength(10);
  });

  it("keeps with a verdict both sides' rates and intervals and the tasks lost and gained", () => {
    const mixed = run('mixed', 10, (task) => task !== 3 && task !== 8);
    const numbers = gateNumbers(
      compareRuns(
        run('base', 10, (task) => task !== 0),
        mixed,
      ),
    );
    expect(numbers).toMatchObject({
      baseline: { runId: 'base', config: 'current', resolved: 27, attempts: 30 },
      candidate: { runId: 'mixed', resolved: 24, attempts: 30, rate: 0.8 },
      tasks: 10,
      lost: ['t03', 't08'],
      gained: ['t00'],
    });
    expect(numbers.candidate.low).toBeLessThan(0.8);
    expect(numbers.candidate.high).toBeGreaterThan(0.8);
  });
});
