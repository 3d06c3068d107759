import type { CheckReport } from './check-summary.js';
import {
  DEFAULT_CI_WATCH_LIMITS,
  INITIAL_CI_WATCH_STATE,
  decideCiWatch,
  evaluateCiWatch,
  fixRunKey,
  weighsBaseFailures,
  type CiWatchContext,
} from './ci-watch-policy.js';

const HEAD = 'a'.repeat(40);
const NOW = 1_800_000_000_000;
const failed = (name: string): CheckReport => ({
  kind: 'check_run',
  name,
  status: 'completed',
  conclusion: 'failure',
  url: `https://ci.example/${name}`,
});
const passed = (name: string): CheckReport => ({
  kind: 'check_run',
  name,
  status: 'completed',
  conclusion: 'success',
});

/** A PR every rule lets through: the decision is a fix run. */
function context(overrides: Partial<CiWatchContext> = {}): CiWatchContext {
  return {
    pullRequest: { state: 'open', headSha: HEAD, mergeable: true },
    repositoryEnabled: true,
    openedByAgentThread: true,
    pullRequestToggle: null,
    profileAutoFix: true,
    headCommitByAgent: true,
    checks: [failed('lint'), passed('build')],
    failingOnBase: new Set(),
    rerunStarted: false,
    threadBusy: false,
    state: { ...INITIAL_CI_WATCH_STATE, headSha: HEAD },
    now: NOW,
    limits: DEFAULT_CI_WATCH_LIMITS,
    ...overrides,
  };
}

const state = (fields: Partial<CiWatchContext['state']>) => ({
  ...INITIAL_CI_WATCH_STATE,
  headSha: HEAD,
  ...fields,
});
const green = [passed('lint'), passed('build')];
const settledGreen = () => {
  const first = evaluateCiWatch(context({ checks: green }));
  return first.state.green;
};

describe('decideCiWatch: one row per rule, in the order they apply', () => {
  const rows: [string, Partial<CiWatchContext>, object][] = [
    [
      'a merged PR ends the watch, as merged',
      { pullRequest: { state: 'merged', headSha: HEAD, mergeable: null } },
      { action: 'finish_watch', reason: 'pull_request_merged' },
    ],
    [
      'a PR closed unmerged ends the watch, as closed',
      { pullRequest: { state: 'closed', headSha: HEAD, mergeable: null } },
      { action: 'finish_watch', reason: 'pull_request_closed' },
    ],
    [
      'the repository is not enabled',
      { repositoryEnabled: false },
      { action: 'skip', reason: 'repository_not_enabled' },
    ],
    [
      'a PR no agent thread opened (a person, the reviewer)',
      { openedByAgentThread: false },
      { action: 'skip', reason: 'not_an_agent_pull_request' },
    ],
    [
      '`@caravel autofix off` on the PR',
      { pullRequestToggle: 'off' },
      { action: 'skip', reason: 'disabled_on_pull_request' },
    ],
    [
      "the requester's profile turned auto-fix off",
      { profileAutoFix: false },
      { action: 'skip', reason: 'disabled_by_profile' },
    ],
    [
      'checks still running (or none yet)',
      { checks: [{ kind: 'status', name: 'ci/legacy', state: 'pending' }] },
      { action: 'skip', reason: 'checks_pending' },
    ],
    [
      'green, but not for the settle window yet',
      { checks: green },
      { action: 'skip', reason: 'settling', retryAt: NOW + DEFAULT_CI_WATCH_LIMITS.settleMs },
    ],
    [
      'a cancelled or stale check: the owner decides',
      {
        checks: [
          passed('build'),
          { kind: 'check_run', name: 'e2e', status: 'completed', conclusion: 'cancelled' },
        ],
      },
      { action: 'needs_owner_triage', headSha: HEAD },
    ],
    [
      'every failing check fails on the base branch too',
      { failingOnBase: new Set(['lint']) },
      { action: 'skip', reason: 'all_failing_on_base' },
    ],
    [
      "a person's commit at the head (do not fight pushes)",
      { headCommitByAgent: false },
      { action: 'skip', reason: 'human_commit_at_head' },
    ],
    [
      'this head (and rerun count) was handled already',
      { state: state({ handledKeys: [fixRunKey(HEAD, 0)] }) },
      { action: 'skip', reason: 'already_handled' },
    ],
    [
      'the loop cap per PR: one "limit reached" status',
      { state: state({ fixRuns: 10 }) },
      { action: 'announce_limit', fixRuns: 10 },
    ],
    [
      '... and nothing after it',
      { state: state({ fixRuns: 10, limitAnnounced: true }) },
      { action: 'skip', reason: 'limit_already_announced' },
    ],
    [
      'the flaky-rerun cap at this head',
      { state: state({ rerunsAtHead: 3 }) },
      { action: 'skip', reason: 'flaky_rerun_cap' },
    ],
    [
      'a busy thread: the fix waits in its queue',
      { threadBusy: true },
      { action: 'enqueue_fix', key: fixRunKey(HEAD, 0), mergeConflict: false },
    ],
    [
      'otherwise: a fix run for the failing checks not failing on base',
      {
        checks: [failed('lint'), failed('flaky-on-main')],
        failingOnBase: new Set(['flaky-on-main']),
      },
      {
        action: 'fix',
        key: fixRunKey(HEAD, 0),
        failing: [{ name: 'lint', url: 'https://ci.example/lint' }],
      },
    ],
  ];

  it.each(rows)('%s', (_name, overrides, expected) => {
    expect(decideCiWatch(context(overrides))).toMatchObject(expected);
  });

  it('applies the first rule that matches: every opt-out at once reports the repository', () => {
    const all = context({
      repositoryEnabled: false,
      openedByAgentThread: false,
      pullRequestToggle: 'off',
      profileAutoFix: false,
      headCommitByAgent: false,
    });
    expect(decideCiWatch(all)).toEqual({ action: 'skip', reason: 'repository_not_enabled' });
    expect(decideCiWatch({ ...all, repositoryEnabled: true })).toMatchObject({
      reason: 'not_an_agent_pull_request',
    });
    const agentPullRequest = { ...all, repositoryEnabled: true, openedByAgentThread: true };
    expect(decideCiWatch(agentPullRequest)).toMatchObject({ reason: 'disabled_on_pull_request' });
    // The profile comes after the PR's own toggle and before anything the checks say.
    const pending: CheckReport[] = [{ kind: 'status', name: 'ci/legacy', state: 'pending' }];
    expect(
      decideCiWatch({ ...agentPullRequest, pullRequestToggle: null, checks: pending }),
    ).toMatchObject({ reason: 'disabled_by_profile' });
  });

  it('lets `@caravel autofix on` on the PR outrank a profile that turned auto-fix off', () => {
    expect(
      decideCiWatch(context({ profileAutoFix: false, pullRequestToggle: 'on' })),
    ).toMatchObject({ action: 'fix' });
  });

  it('treats a merge conflict as a failure to fix, even with CI green', () => {
    const decision = decideCiWatch(
      context({ checks: green, pullRequest: { state: 'open', headSha: HEAD, mergeable: false } }),
    );
    expect(decision).toMatchObject({
      action: 'fix',
      key: fixRunKey(HEAD, 0, true),
      mergeConflict: true,
      failing: [],
    });
  });

  it('gives a conflict found after the head had its fix run a fix run of its own, once', () => {
    const conflicted = { pullRequest: { state: 'open' as const, headSha: HEAD, mergeable: false } };
    const handled = state({ handledKeys: [fixRunKey(HEAD, 0)] });
    expect(decideCiWatch(context({ ...conflicted, state: handled }))).toMatchObject({
      action: 'fix',
      mergeConflict: true,
    });
    const both = state({ handledKeys: [fixRunKey(HEAD, 0), fixRunKey(HEAD, 0, true)] });
    expect(decideCiWatch(context({ ...conflicted, state: both }))).toEqual({
      action: 'skip',
      reason: 'already_handled',
    });
  });
});

describe('weighsBaseFailures: the base branch is read only when its failures could matter', () => {
  it.each([
    ['failing checks on a wanted, open PR', {}, true],
    ['green checks', { checks: green }, false],
    ['pending checks', { checks: [{ kind: 'status', name: 'ci', state: 'pending' }] }, false],
    ['a closed PR', { pullRequest: { state: 'closed', headSha: HEAD, mergeable: null } }, false],
    ['a repository not enabled', { repositoryEnabled: false }, false],
    ['`autofix off` on the PR', { pullRequestToggle: 'off' }, false],
    ["a requester's profile with auto-fix off", { profileAutoFix: false }, false],
    ['a head that had its fix run', { state: state({ handledKeys: [fixRunKey(HEAD, 0)] }) }, false],
    [
      'a new head after a handled one',
      { state: state({ headSha: 'b'.repeat(40), handledKeys: [fixRunKey('b'.repeat(40), 0)] }) },
      true,
    ],
  ] as [string, Partial<CiWatchContext>, boolean][])('%s', (_name, overrides, expected) => {
    expect(weighsBaseFailures(context(overrides))).toBe(expected);
  });
});

describe('evaluateCiWatch: the state kept between evaluations', () => {
  it('announces green once the same check set held for the settle window, once per head', () => {
    const since = settledGreen();
    expect(since).toEqual({ fingerprint: expect.any(String), since: NOW });
    const early = evaluateCiWatch(
      context({ checks: green, state: state({ green: since }), now: NOW + 60_000 }),
    );
    expect(early.decision).toMatchObject({ reason: 'settling' });

    const later = NOW + DEFAULT_CI_WATCH_LIMITS.settleMs;
    const settled = evaluateCiWatch(
      context({ checks: green, state: state({ green: since }), now: later }),
    );
    expect(settled.decision).toEqual({ action: 'announce_green', headSha: HEAD });
    expect(
      evaluateCiWatch({ ...context({ checks: green, now: later }), state: settled.state }).decision,
    ).toEqual({ action: 'skip', reason: 'already_announced' });
  });

  it('restarts the settle window when a check appears late', () => {
    const since = settledGreen();
    const grown = evaluateCiWatch(
      context({
        checks: [...green, passed('deploy-preview')],
        state: state({ green: since }),
        now: NOW + DEFAULT_CI_WATCH_LIMITS.settleMs,
      }),
    );
    expect(grown.decision).toMatchObject({ reason: 'settling' });
    expect(grown.state.green?.since).toBe(NOW + DEFAULT_CI_WATCH_LIMITS.settleMs);
  });

  it('counts a fix, remembers its key, and dedupes the same head on the next delivery', () => {
    const first = evaluateCiWatch(context());
    expect(first.decision).toMatchObject({ action: 'fix' });
    expect(first.state).toMatchObject({ fixRuns: 1, handledKeys: [fixRunKey(HEAD, 0)] });
    const again = evaluateCiWatch({ ...context(), state: first.state });
    expect(again.decision).toEqual({ action: 'skip', reason: 'already_handled' });
  });

  it('starts a new head afresh: its reruns and green window reset, the fix count does not', () => {
    const old = state({ headSha: 'b'.repeat(40), fixRuns: 4, rerunsAtHead: 3 });
    const result = evaluateCiWatch(context({ state: old }));
    expect(result.decision).toMatchObject({ action: 'fix', key: fixRunKey(HEAD, 0) });
    expect(result.state).toMatchObject({ headSha: HEAD, rerunsAtHead: 0, fixRuns: 5 });
  });

  it('counts a rerun of a failed check at the head: its next failure is a new fix, up to the cap', () => {
    const fixed = evaluateCiWatch(context()).state;
    const rerun = evaluateCiWatch(
      context({
        checks: [{ kind: 'check_run', name: 'lint', status: 'queued', conclusion: null }],
        state: fixed,
        rerunStarted: true,
      }),
    );
    expect(rerun.decision).toEqual({ action: 'skip', reason: 'checks_pending' });
    expect(rerun.state.rerunsAtHead).toBe(1);
    const failedAgain = evaluateCiWatch(context({ state: rerun.state }));
    expect(failedAgain.decision).toMatchObject({ action: 'fix', key: fixRunKey(HEAD, 1) });

    let capped = failedAgain.state;
    for (let i = 0; i < 2; i += 1) {
      capped = evaluateCiWatch(context({ state: capped, rerunStarted: true })).state;
    }
    expect(capped.rerunsAtHead).toBe(DEFAULT_CI_WATCH_LIMITS.maxFlakyRerunsPerHead);
    expect(evaluateCiWatch(context({ state: capped })).decision).toEqual({
      action: 'skip',
      reason: 'flaky_rerun_cap',
    });
  });

  it('posts the limit once, then stays quiet', () => {
    const capped = evaluateCiWatch(context({ state: state({ fixRuns: 10 }) }));
    expect(capped.decision).toEqual({ action: 'announce_limit', fixRuns: 10 });
    expect(evaluateCiWatch({ ...context(), state: capped.state }).decision).toEqual({
      action: 'skip',
      reason: 'limit_already_announced',
    });
  });
});
