import { PeriodicTask } from './periodic-task.js';

describe('PeriodicTask', () => {
  it('joins a run asked for while one is going, and runs again once it ended', async () => {
    let release: () => void = () => undefined;
    let runs = 0;
    const task = new PeriodicTask(
      'sweep',
      () => {
        runs += 1;
        return new Promise<number>((resolve) => (release = () => resolve(runs)));
      },
      { warn: () => undefined },
    );
    const first = task.run();
    const joined = task.run();
    release();
    expect(await first).toBe(1);
    expect(await joined).toBe(1);
    const second = task.run();
    release();
    expect(await second).toBe(2);
  });

  it('logs a failed run by name and answers undefined', async () => {
    const warnings: string[] = [];
    const task = new PeriodicTask('idle sweep', () => Promise.reject(new Error('db down')), {
      warn: (message) => void warnings.push(message),
    });
    expect(await task.run()).toBeUndefined();
    expect(warnings).toEqual(['idle sweep failed: Error: db down']);
    await task.stop();
  });
});
