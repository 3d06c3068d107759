import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { StuckDetector } from './stuck-detector.js';

describe('StuckDetector', () => {
  it('declares the run stuck after the same action and observation 4 times in a row', () => {
    const detector = new StuckDetector();
    const verdicts = [1, 2, 3, 4].map(() => detector.record('pytest', 'FAILED test_x'));
    expect(verdicts.map((v) => v.stuck)).toEqual([false, false, false, true]);
    expect(verdicts[3]).toMatchObject({ stuck: true, repeats: 4, reason: 'exit_stuck' });
  });

  it('resets when the observation changes', () => {
    const detector = new StuckDetector(3);
    detector.record('pytest', 'FAILED');
    detector.record('pytest', 'FAILED');
    expect(detector.record('pytest', 'PASSED')).toEqual({ stuck: false, repeats: 1 });
    detector.record('pytest', 'PASSED');
    expect(detector.record('pytest', 'PASSED').stuck).toBe(true);
  });

  it('resets when the action changes', () => {
    const detector = new StuckDetector(2);
    detector.record('ls', 'a');
    expect(detector.record('ls -a', 'a')).toEqual({ stuck: false, repeats: 1 });
  });

  it('does not count the same action with different observations', () => {
    const detector = new StuckDetector(2);
    expect(['1', '2', '3'].map((o) => detector.record('date', o).stuck)).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('rejects a threshold below 2', () => {
    expect(() => new StuckDetector(1)).toThrow(AppError);
  });
});
