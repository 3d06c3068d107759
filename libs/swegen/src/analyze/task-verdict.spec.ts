import { describe, expect, it } from '@jest/globals';
import { classesFor, taskVerdict, trialPassed, type JudgedTrial } from './task-verdict.js';

const good = (n: number): JudgedTrial[] =>
  Array.from({ length: n }, () => ({ reward: 1, classification: 'good_success' as const }));
const agentFails = (n: number): JudgedTrial[] =>
  Array.from({ length: n }, () => ({ reward: 0, classification: 'good_failure' as const }));

describe('taskVerdict', () => {
  it('calls a task good when some trials solve it and the rest fail for the agent', () => {
    const verdict = taskVerdict([...good(1), ...agentFails(2)]);
    expect(verdict).toMatchObject({ verdict: 'good', keep: true, passed: 1, trials: 3 });
    expect(verdict.passRate).toBeCloseTo(1 / 3);
    expect(verdict.counts).toEqual({
      good_success: 1,
      bad_success: 0,
      good_failure: 2,
      bad_failure: 0,
    });
  });

  it('calls a task every trial solves too easy, and does not keep it', () => {
    expect(taskVerdict(good(3))).toMatchObject({ verdict: 'too_easy', keep: false, passRate: 1 });
  });

  it('keeps a task no trial solves when every failure is the agent’s', () => {
    expect(taskVerdict(agentFails(2))).toMatchObject({ verdict: 'too_hard', keep: true });
  });

  it('calls a task broken when a failure is the task’s fault and nothing passed legitimately', () => {
    const verdict = taskVerdict([...agentFails(1), { reward: 0, classification: 'bad_failure' }]);
    expect(verdict).toMatchObject({ verdict: 'broken', keep: false });
    expect(verdict.reasons).toContain('1 failure(s) blamed on the task (tests, environment)');
  });

  it('calls a task flaky when a task-caused failure sits beside a genuine success', () => {
    const verdict = taskVerdict([...good(1), { reward: null, classification: 'bad_failure' }]);
    expect(verdict).toMatchObject({ verdict: 'flaky', keep: false });
  });

  it('calls a task exploitable when a trial passes without a genuine fix', () => {
    const verdict = taskVerdict([...agentFails(1), { reward: 1, classification: 'bad_success' }]);
    expect(verdict).toMatchObject({ verdict: 'exploitable', keep: false });
  });

  it('judges unclassified trials by their reward and says so', () => {
    const verdict = taskVerdict([{ reward: 1 }, { reward: 0.5 }, { reward: null }]);
    expect(verdict).toMatchObject({ verdict: 'good', unclassified: 3, passed: 1 });
    expect(verdict.reasons).toContain('3 trial(s) judged by the reward alone');
  });

  it('calls a task whose environment did not build broken, whatever the trials', () => {
    const verdict = taskVerdict([], 'RUN npm ci failed');
    expect(verdict).toMatchObject({ verdict: 'broken', keep: false, trials: 0, passRate: 0 });
    expect(verdict.reasons).toEqual(['the environment failed: RUN npm ci failed']);
  });
});

describe('the reward as ground truth', () => {
  it('passes only a reward of 1 or more', () => {
    expect([1, 1.5, 0.99, 0, null].map(trialPassed)).toEqual([true, true, false, false, false]);
  });

  it('offers the classifier only the classes the reward allows', () => {
    expect(classesFor(true)).toEqual(['good_success', 'bad_success']);
    expect(classesFor(false)).toEqual(['good_failure', 'bad_failure']);
  });
});
