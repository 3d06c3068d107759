import { describe, expect, it } from '@jest/globals';
import { ReadinessChecks } from './readiness-checks.js';

const answers = () => Promise.resolve();

describe('ReadinessChecks', () => {
  it('answers which check failed, not what it failed with, and logs the reason once', async () => {
    const logged: string[] = [];
    const checks = new ReadinessChecks<'bus' | 'database'>((line) => logged.push(line));
    const failure = new Error('connect ECONNREFUSED 10.0.3.7:5432 (caravel:hunter2@db.internal)');
    const probes = { bus: answers, database: () => Promise.reject(failure) };

    const first = await checks.run(probes);
    const second = await checks.run(probes);

    expect(first).toEqual({ bus: 'ok', database: 'failed' });
    expect(JSON.stringify(second)).not.toContain('10.0.3.7');
    expect(logged).toEqual([
      'readiness: database failed: connect ECONNREFUSED 10.0.3.7:5432 (caravel:hunter2@db.internal)',
    ]);
  });

  it('logs a check again once it has answered in between, and a different failure', async () => {
    const logged: string[] = [];
    const checks = new ReadinessChecks<'database'>((line) => logged.push(line));
    const failing = (reason: string) => ({ database: () => Promise.reject(new Error(reason)) });

    await checks.run(failing('timeout'));
    expect(await checks.run({ database: answers })).toEqual({ database: 'ok' });
    await checks.run(failing('timeout'));
    await checks.run(failing('too many clients'));

    expect(logged).toEqual([
      'readiness: database failed: timeout',
      'readiness: database answers again',
      'readiness: database failed: timeout',
      'readiness: database failed: too many clients',
    ]);
  });
});
