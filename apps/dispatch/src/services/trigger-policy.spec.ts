import { RUN_STATUSES, type RunStatus } from '@caravel/db';
import { triggerStep } from './trigger-policy.js';

describe('trigger policy', () => {
  it("claims the thread for a new run, and a person's command joins the active run instead", () => {
    expect(triggerStep('queued', 'message')).toBe('claim');
    expect(triggerStep('queued', 'command')).toBe('join');
  });

  it('joins again for a trigger whose run was merged into the active one', () => {
    expect(triggerStep('merged', 'message')).toBe('join');
    expect(triggerStep('merged', 'command')).toBe('join');
  });

  it('does nothing more for a redelivered trigger whose run waits, runs or ended', () => {
    const later: RunStatus[] = RUN_STATUSES.filter((s) => s !== 'queued' && s !== 'merged');
    expect(later).toEqual(['waiting', 'running', 'completed', 'failed', 'interrupted']);
    for (const status of later) {
      expect([triggerStep(status, 'message'), triggerStep(status, 'command')]).toEqual([
        'none',
        'none',
      ]);
    }
  });
});
