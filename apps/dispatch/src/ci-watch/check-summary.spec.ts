import { checkVerdict, summariseChecks, type CheckReport } from './check-summary.js';

const run = (
  name: string,
  status: Extract<CheckReport, { kind: 'check_run' }>['status'],
  conclusion: Extract<CheckReport, { kind: 'check_run' }>['conclusion'] = null,
): CheckReport => ({ kind: 'check_run', name, status, conclusion });
const status = (state: Extract<CheckReport, { kind: 'status' }>['state']): CheckReport => ({
  kind: 'status',
  name: 's',
  state,
});

describe('checkVerdict', () => {
  it.each([
    [run('a', 'completed', 'success'), 'passing'],
    [run('a', 'completed', 'neutral'), 'passing'],
    [run('a', 'completed', 'skipped'), 'passing'],
    [run('a', 'completed', 'failure'), 'failing'],
    [run('a', 'completed', 'timed_out'), 'failing'],
    [run('a', 'completed', 'action_required'), 'failing'],
    [run('a', 'completed', 'startup_failure'), 'failing'],
    [run('a', 'completed', 'cancelled'), 'inconclusive'],
    [run('a', 'completed', 'stale'), 'inconclusive'],
    [run('a', 'in_progress'), 'pending'],
    [run('a', 'queued'), 'pending'],
    [status('error'), 'failing'],
    [status('failure'), 'failing'],
    [status('pending'), 'pending'],
    [status('success'), 'passing'],
  ])('%j is %s', (check, verdict) => {
    expect(checkVerdict(check)).toBe(verdict);
  });
});

describe('summariseChecks', () => {
  it('fails on any failing check, listing the failing ones by name with their links', () => {
    const summary = summariseChecks([
      run('z-test', 'in_progress'),
      { kind: 'status', name: 'ci/lint', state: 'failure', url: 'https://ci/lint' },
      run('build', 'completed', 'failure'),
    ]);
    expect(summary.verdict).toBe('failure');
    expect(summary.failing).toEqual([
      { name: 'build' },
      { name: 'ci/lint', url: 'https://ci/lint' },
    ]);
  });

  it('is pending with nothing reported yet, or anything still running', () => {
    expect(summariseChecks([]).verdict).toBe('pending');
    expect(summariseChecks([run('a', 'completed', 'success'), run('b', 'queued')]).verdict).toBe(
      'pending',
    );
  });

  it('needs the owner when nothing fails but a check was cancelled', () => {
    const checks = [run('a', 'completed', 'success'), run('b', 'completed', 'cancelled')];
    expect(summariseChecks(checks).verdict).toBe('needs_owner_triage');
  });

  it('counts a re-run check by its last report', () => {
    const checks = [run('a', 'completed', 'failure'), run('a', 'completed', 'success')];
    expect(summariseChecks(checks)).toMatchObject({ verdict: 'success', failing: [] });
  });

  it('fingerprints the set of names and verdicts, not their order', () => {
    const a = run('a', 'completed', 'success');
    const b = run('b', 'completed', 'success');
    expect(summariseChecks([a, b]).fingerprint).toBe(summariseChecks([b, a]).fingerprint);
    expect(summariseChecks([a, b]).fingerprint).not.toBe(summariseChecks([a]).fingerprint);
  });
});
