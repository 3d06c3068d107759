import { createHash } from 'node:crypto';
import { summariseChecks, type CheckReport, type CheckSummary } from './check-summary.js';

/** The caps and the settle window of CI babysitting. */
export interface CiWatchLimits {
  /** Fix runs dispatched for one PR at most; then one "limit reached" status and no more. */
  maxFixRunsPerPullRequest: number;
  /** Reruns on the evidence of flakiness at one head at most. */
  maxFlakyRerunsPerHead: number;
  /** How long the same green check set must hold before success is announced. */
  settleMs: number;
}

export const DEFAULT_CI_WATCH_LIMITS: CiWatchLimits = {
  maxFixRunsPerPullRequest: 10,
  maxFlakyRerunsPerHead: 3,
  settleMs: 10 * 60_000,
};

/** What is kept per watched PR between evaluations. */
export interface CiWatchState {
  /** The head the per-head fields below are about. */
  headSha: string | null;
  /** Fix runs dispatched for this PR so far (a batched one counts once it is dispatched). */
  fixRuns: number;
  /** Whether the "limit reached" status was posted (it is posted once). */
  limitAnnounced: boolean;
  /** Dedupe keys of the fix runs already dispatched (`fixRunKey`), the last 30. */
  handledKeys: readonly string[];
  /** Flaky reruns the agent recorded at `headSha`. */
  rerunsAtHead: number;
  /** The green check set last seen at `headSha`, and since when. */
  green: { fingerprint: string; since: number } | null;
  /** The head whose success was announced. */
  announcedHead: string | null;
}

/** Everything one evaluation of a PR's CI looks at, read before deciding. */
export interface CiWatchContext {
  pullRequest: { state: 'open' | 'closed' | 'merged'; headSha: string; mergeable: boolean | null };
  /** The repository is enabled for CI babysitting. */
  repositoryEnabled: boolean;
  /** Whether an agent thread opened the PR (a reviewer's thread, or a person's PR, is not). */
  openedByAgentThread: boolean;
  /** `@caravel autofix on|off` said on the PR, the latest wins; null when nobody said. */
  pullRequestToggle: 'on' | 'off' | null;
  /** The requester's profile flag (auto-fix CI; on unless they turned it off). */
  profileAutoFix: boolean;
  /** The head commit was made by the agent (a person's commit there means: do not fight it). */
  headCommitByAgent: boolean;
  checks: readonly CheckReport[];
  /** Names of the checks failing at the PR's base commit: not this PR's to fix. */
  failingOnBase: ReadonlySet<string>;
  /** This delivery starts again a check that had failed at this head: a (flaky) rerun. */
  rerunStarted: boolean;
  /** A run of the thread is active now: a fix is queued behind it, never interrupts it. */
  threadBusy: boolean;
  state: CiWatchState;
  now: number;
  limits: CiWatchLimits;
}

/** Why nothing is done (each a named outcome the status line and the tests show). */
export type CiWatchSkip =
  | 'pull_request_closed'
  | 'repository_not_enabled'
  | 'not_an_agent_pull_request'
  | 'disabled_on_pull_request'
  | 'disabled_by_profile'
  | 'checks_pending'
  | 'settling'
  | 'already_announced'
  | 'all_failing_on_base'
  | 'human_commit_at_head'
  | 'already_handled'
  | 'limit_already_announced'
  | 'flaky_rerun_cap';

export type CiWatchDecision =
  | { action: 'skip'; reason: CiWatchSkip; retryAt?: number }
  | { action: 'finish_watch'; reason: 'pull_request_closed' | 'pull_request_merged' }
  | { action: 'announce_green'; headSha: string }
  | { action: 'needs_owner_triage'; headSha: string }
  | { action: 'announce_limit'; fixRuns: number }
  | {
      action: 'fix' | 'enqueue_fix';
      key: string;
      headSha: string;
      failing: { name: string; url?: string }[];
      mergeConflict: boolean;
    };

/**
 * The dedupe key of a fix run: one per head and flaky-rerun count, and one more for a merge
 * conflict there (a conflict found after the head's failing checks had their fix is new work).
 */
export function fixRunKey(headSha: string, reruns: number, mergeConflict = false): string {
  const what = `${headSha}|retry:${reruns}${mergeConflict ? '|conflict' : ''}`;
  return createHash('sha256').update(what).digest('hex');
}

/** The rules about who wants babysitting at all, in order; null when all pass. */
function optOut(context: Omit<CiWatchContext, 'failingOnBase'>): CiWatchSkip | null {
  if (!context.repositoryEnabled) return 'repository_not_enabled';
  if (!context.openedByAgentThread) return 'not_an_agent_pull_request';
  if (context.pullRequestToggle === 'off') return 'disabled_on_pull_request';
  // A person who turned it on for this PR outranks their profile's default.
  if (context.pullRequestToggle !== 'on' && !context.profileAutoFix) return 'disabled_by_profile';
  return null;
}

/**
 * Whether the base branch's failing checks could change what is done: the PR is open, wanted,
 * its checks fail, and the head has not had its fix run yet (every later failing check at a
 * handled head is skipped either way). Only then is the base read: a failing check's every
 * delivery would otherwise cost code host calls.
 */
export function weighsBaseFailures(
  context: Omit<CiWatchContext, 'failingOnBase'>,
  summary: CheckSummary = summariseChecks(context.checks),
): boolean {
  const { pullRequest, state } = context;
  if (pullRequest.state !== 'open' || summary.failing.length === 0) return false;
  const reruns = state.headSha === pullRequest.headSha ? state.rerunsAtHead : 0;
  const key = fixRunKey(pullRequest.headSha, reruns, pullRequest.mergeable === false);
  return optOut(context) === null && !state.handledKeys.includes(key);
}

/** A green check set is announced once it has held for the settle window, once per head. */
function greenDecision(context: CiWatchContext, fingerprint: string): CiWatchDecision {
  const { headSha } = context.pullRequest;
  if (context.state.announcedHead === headSha)
    return { action: 'skip', reason: 'already_announced' };
  const green = context.state.green;
  if (green?.fingerprint !== fingerprint) {
    return { action: 'skip', reason: 'settling', retryAt: context.now + context.limits.settleMs };
  }
  const settledAt = green.since + context.limits.settleMs;
  if (context.now < settledAt) return { action: 'skip', reason: 'settling', retryAt: settledAt };
  return { action: 'announce_green', headSha };
}

/**
 * Decides what one evaluation of a watched PR does. The first matching rule wins: a closed PR
 * ends the watch; then whether anyone wants babysitting (repository, agent PR, the PR's toggle,
 * the profile); then what the checks say (pending waits, green settles before it is announced,
 * cancelled or stale needs the owner); then whether a failure is the PR's to fix (not failing on
 * the base too, no person's commit at the head, not handled already, within the caps). A merge
 * conflict is a failure with nothing in CI. A fix waits behind a busy thread rather than
 * interrupting it. `summary` is the checks' summary when the caller already made it.
 */
export function decideCiWatch(
  context: CiWatchContext,
  summary: CheckSummary = summariseChecks(context.checks),
): CiWatchDecision {
  const { pullRequest, state, limits } = context;
  // Merged and closed are kept apart: the dashboard counts an agent PR's cost per merge.
  if (pullRequest.state !== 'open') {
    const merged = pullRequest.state === 'merged';
    return {
      action: 'finish_watch',
      reason: merged ? 'pull_request_merged' : 'pull_request_closed',
    };
  }
  const skip = optOut(context);
  if (skip) return { action: 'skip', reason: skip };

  const mergeConflict = pullRequest.mergeable === false;
  if (!mergeConflict) {
    if (summary.verdict === 'pending') return { action: 'skip', reason: 'checks_pending' };
    if (summary.verdict === 'success') return greenDecision(context, summary.fingerprint);
    if (summary.verdict === 'needs_owner_triage') {
      return { action: 'needs_owner_triage', headSha: pullRequest.headSha };
    }
  }
  const failing = summary.failing.filter((check) => !context.failingOnBase.has(check.name));
  if (!mergeConflict && failing.length === 0)
    return { action: 'skip', reason: 'all_failing_on_base' };
  if (!context.headCommitByAgent) return { action: 'skip', reason: 'human_commit_at_head' };
  const key = fixRunKey(pullRequest.headSha, state.rerunsAtHead, mergeConflict);
  if (state.handledKeys.includes(key)) return { action: 'skip', reason: 'already_handled' };
  if (state.fixRuns >= limits.maxFixRunsPerPullRequest) {
    return state.limitAnnounced
      ? { action: 'skip', reason: 'limit_already_announced' }
      : { action: 'announce_limit', fixRuns: state.fixRuns };
  }
  if (state.rerunsAtHead >= limits.maxFlakyRerunsPerHead) {
    return { action: 'skip', reason: 'flaky_rerun_cap' };
  }
  return {
    action: context.threadBusy ? 'enqueue_fix' : 'fix',
    key,
    headSha: pullRequest.headSha,
    failing,
    mergeConflict,
  };
}

/**
 * True when carrying out the decision changes something outside the watch's counts: a fix run, a
 * message in the thread's channel, or the watch stopped at a person's commit. Such a decision,
 * when it was made on a check delivery alone, is worth one read of the pull request first: a
 * delivery says nothing of a merge or a push it raced with.
 */
export function actsOnPullRequest(decision: CiWatchDecision): boolean {
  switch (decision.action) {
    case 'fix':
    case 'enqueue_fix':
    case 'announce_green':
    case 'announce_limit':
    case 'needs_owner_triage':
      return true;
    case 'skip':
      return decision.reason === 'human_commit_at_head';
    case 'finish_watch':
      return false;
  }
}

export const INITIAL_CI_WATCH_STATE: CiWatchState = {
  headSha: null,
  fixRuns: 0,
  limitAnnounced: false,
  handledKeys: [],
  rerunsAtHead: 0,
  green: null,
  announcedHead: null,
};

const HANDLED_KEYS_KEPT = 30;

/**
 * One evaluation: the decision, and the state to keep for the next one. A new head starts its
 * per-head counts afresh (reruns, the green window); a failed check started again at the same
 * head counts a rerun (the next failure there is a new fix key, up to the per-head cap); a green
 * check set starts its settle window the first time it is seen; a dispatched or queued fix is
 * counted and its key remembered.
 */
export function evaluateCiWatch(context: CiWatchContext): {
  decision: CiWatchDecision;
  state: CiWatchState;
} {
  const { headSha } = context.pullRequest;
  const sameHead = context.state.headSha === headSha;
  const current: CiWatchState = sameHead
    ? {
        ...context.state,
        rerunsAtHead: context.state.rerunsAtHead + (context.rerunStarted ? 1 : 0),
      }
    : { ...context.state, headSha, rerunsAtHead: 0, green: null };
  const summary = summariseChecks(context.checks);
  const green =
    summary.verdict !== 'success'
      ? null
      : current.green?.fingerprint === summary.fingerprint
        ? current.green
        : { fingerprint: summary.fingerprint, since: context.now };
  const state: CiWatchState = { ...current, green };
  // One summary serves both the settle window and the decision.
  const decision = decideCiWatch({ ...context, state }, summary);
  switch (decision.action) {
    case 'fix':
    case 'enqueue_fix':
      return {
        decision,
        state: {
          ...state,
          fixRuns: state.fixRuns + 1,
          handledKeys: [...state.handledKeys, decision.key].slice(-HANDLED_KEYS_KEPT),
        },
      };
    case 'announce_limit':
      return { decision, state: { ...state, limitAnnounced: true } };
    case 'announce_green':
      return { decision, state: { ...state, announcedHead: decision.headSha } };
    case 'skip':
    case 'finish_watch':
    case 'needs_owner_triage':
      return { decision, state };
  }
}
