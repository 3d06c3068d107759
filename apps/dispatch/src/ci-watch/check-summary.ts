import { createHash } from 'node:crypto';

/**
 * One CI signal on a commit, as GitHub reports it: a check run (`status` + `conclusion`) or a
 * commit status (`state`). Names and URLs come from whoever configured the CI: untrusted.
 */
export type CheckReport =
  | {
      kind: 'check_run';
      name: string;
      status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
      conclusion:
        | 'success'
        | 'failure'
        | 'neutral'
        | 'cancelled'
        | 'skipped'
        | 'timed_out'
        | 'action_required'
        | 'stale'
        | 'startup_failure'
        | null;
      url?: string;
    }
  | {
      kind: 'status';
      name: string;
      state: 'success' | 'failure' | 'error' | 'pending';
      url?: string;
    };

/** What one check says about the commit. */
export type CheckVerdict = 'passing' | 'failing' | 'pending' | 'inconclusive';

/** What a commit's checks say together. */
export type CheckSetVerdict = 'success' | 'failure' | 'pending' | 'needs_owner_triage';

export interface CheckSummary {
  verdict: CheckSetVerdict;
  /** The failing checks, by name (sorted), with their links when CI gave one. */
  failing: { name: string; url?: string }[];
  /**
   * The check set's identity (every name with its verdict): green is announced only once the
   * same fingerprint has held for the settle window, so a check that appears late is waited for.
   */
  fingerprint: string;
}

/** A check run's or status's verdict; neutral and skipped runs count as passing. */
export function checkVerdict(check: CheckReport): CheckVerdict {
  if (check.kind === 'status') {
    switch (check.state) {
      case 'success':
        return 'passing';
      case 'failure':
      case 'error':
        return 'failing';
      case 'pending':
        return 'pending';
    }
  }
  if (check.status !== 'completed') return 'pending';
  switch (check.conclusion) {
    case 'success':
    case 'neutral':
    case 'skipped':
      return 'passing';
    case 'failure':
    case 'timed_out':
    case 'action_required':
    case 'startup_failure':
      return 'failing';
    case 'cancelled':
    case 'stale':
      return 'inconclusive';
    case null:
      return 'pending';
  }
}

/**
 * Sums a commit's checks up: any failing check fails it; otherwise anything pending (or no check
 * at all: CI may not have started) keeps it pending; otherwise a cancelled or stale one needs its
 * owner (nothing to fix, nothing to announce); otherwise it is green. A name reported twice (a
 * re-run) counts by its last report.
 */
export function summariseChecks(checks: readonly CheckReport[]): CheckSummary {
  const latest = new Map<string, CheckReport>();
  for (const check of checks) latest.set(check.name, check);
  const verdicts = [...latest.values()]
    .map((check) => ({ check, verdict: checkVerdict(check) }))
    .sort((a, b) => a.check.name.localeCompare(b.check.name));
  const failing = verdicts
    .filter((v) => v.verdict === 'failing')
    .map(({ check }) => (check.url ? { name: check.name, url: check.url } : { name: check.name }));
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(verdicts.map((v) => [v.check.name, v.verdict])))
    .digest('hex');
  const has = (verdict: CheckVerdict) => verdicts.some((v) => v.verdict === verdict);
  let verdict: CheckSetVerdict = 'success';
  if (failing.length > 0) verdict = 'failure';
  else if (verdicts.length === 0 || has('pending')) verdict = 'pending';
  else if (has('inconclusive')) verdict = 'needs_owner_triage';
  return { verdict, failing, fingerprint };
}
