import { dispatchConfigOf, dispatchEnvSchema } from '../dispatch.config.js';
import type { CiCheck } from '@caravel/contracts';
import type {
  CiWatchRepository,
  CiWatchRow,
  CiWatchSave,
  EnabledRepositoryRepository,
  ThreadPlanRepository,
  ThreadRepository,
  UserProfileRepository,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { MessagePublisher } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { jest } from '@jest/globals';
import type { RunNotifierService } from '../replies/run-notifier.service.js';
import { agentPushOf } from './ci-watch-state.js';
import { CiWatchService } from './ci-watch.service.js';
import type { PullRequestState, PullRequestStatePort } from './pull-request-state.port.js';

const AGENT_HEAD = 'a'.repeat(40);
const PERSON_HEAD = 'b'.repeat(40);
const T0 = Date.parse('2026-12-01T10:00:00Z');
const SETTLE_MS = 10 * 60_000;

const check = (name: string, conclusion: 'failure' | 'success'): CiCheck => ({
  kind: 'check_run',
  name,
  status: 'completed',
  conclusion,
  url: `https://ci.example/${name}`,
});

/**
 * One watch in memory behind the repository's methods the service uses; its thread belongs to
 * `slack:U1`, whose profile leaves auto-fix CI to the team until `requester` changes it.
 */
function setup(
  overrides: Partial<CiWatchRow> = {},
  busy = false,
  base: () => Promise<ReadonlySet<string> | null> = () => Promise.resolve(new Set()),
  hostSays: () => Promise<PullRequestState | null> = () => Promise.resolve(null),
) {
  let row: CiWatchRow = factory.ciWatch({ agentHeads: [AGENT_HEAD.slice(0, 12)], ...overrides });
  let now = T0;
  const thread = factory.thread({
    id: row.threadId,
    status: busy ? 'running' : 'idle',
    repository: { owner: 'acme', name: 'widgets' },
  });
  const watches = strictMock<CiWatchRepository>({
    get: jest.fn(() => Promise.resolve(row)),
    saveState: jest.fn((_id: string, version: number, state: CiWatchSave) => {
      if (version !== row.version) return Promise.resolve(null);
      row = { ...row, ...state, version: version + 1 };
      return Promise.resolve(row);
    }),
    stop: jest.fn((_id: string, reason: string) => {
      row = { ...row, active: false, stoppedReason: reason };
      return Promise.resolve(true);
    }),
  });
  const publish = jest.fn<MessagePublisher['publish']>(() =>
    Promise.resolve({ duplicate: false, seq: 1 } as never),
  );
  const announce = jest.fn<RunNotifierService['announce']>(() => Promise.resolve('posted'));
  const failingOnBase = jest.fn<PullRequestStatePort['failingOnBase']>(base);
  const read = jest.fn<PullRequestStatePort['read']>(hostSays);
  let requester: { owner: string | null; autofixCi: boolean | null } = {
    owner: 'slack:U1',
    autofixCi: null,
  };
  const ownerOf = jest.fn(() => Promise.resolve(requester.owner));
  const profile = jest.fn((identity: string) =>
    Promise.resolve(factory.userProfile({ identity, autofixCi: requester.autofixCi })),
  );
  const config = dispatchConfigOf(dispatchEnvSchema.parse({}));
  const service = new CiWatchService(
    watches,
    strictMock<ThreadRepository>({ get: jest.fn(() => Promise.resolve(thread)) }),
    strictMock<EnabledRepositoryRepository>({
      list: jest.fn(() =>
        Promise.resolve([
          {
            repository: 'acme/widgets',
            agent: true,
            autoReview: false,
            ciAutofix: true,
            updatedBy: 'octocat',
            updatedAt: new Date(T0),
          },
        ]),
      ),
    }),
    strictMock<ThreadPlanRepository>({ ownerOf }),
    strictMock<UserProfileRepository>({ get: profile }),
    strictMock<MessagePublisher>({ publish }),
    strictMock<RunNotifierService>({ announce }),
    strictMock<PullRequestStatePort>({ failingOnBase, read }),
    { now: () => new Date(now) },
    config,
  );
  return {
    service,
    publish,
    announce,
    failingOnBase,
    read,
    ownerOf,
    profile,
    row: () => row,
    advance: (ms: number) => (now += ms),
    requester: (owner: string | null, autofixCi: boolean | null) =>
      (requester = { owner, autofixCi }),
  };
}

describe('CiWatchService', () => {
  it('asks for one fix run on the agent thread for a failing check, and none for its repeat', async () => {
    const { service, publish, row } = setup();
    const seen = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await service.evaluate(row().id, seen)).toMatchObject({ action: 'fix' });
    expect(await service.evaluate(row().id, seen)).toEqual({
      action: 'skip',
      reason: 'already_handled',
    });
    expect(publish).toHaveBeenCalledTimes(1);
    const [, data] = publish.mock.calls[0]!;
    expect(data).toMatchObject({
      threadId: row().threadId,
      source: 'synthetic',
      author: { externalId: 'caravel:ci-watch' },
      repository: { owner: 'acme', name: 'widgets' },
      text: expect.stringContaining('<untrusted'),
    });
    expect(row()).toMatchObject({ fixRuns: 1, headSha: AGENT_HEAD });
  });

  it('queues the fix behind a busy thread (the same synthetic trigger: never an interrupt)', async () => {
    const { service, publish, row } = setup({}, true);
    const decision = await service.evaluate(row().id, {
      headSha: AGENT_HEAD,
      check: check('lint', 'failure'),
    });
    expect(decision).toMatchObject({ action: 'enqueue_fix' });
    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('announces green once, after the same check set held for the settle window', async () => {
    const { service, announce, row, advance } = setup();
    const green = { headSha: AGENT_HEAD, check: check('lint', 'success') };
    expect(await service.evaluate(row().id, green)).toMatchObject({ reason: 'settling' });
    expect(row().retryAt).toEqual(new Date(T0 + SETTLE_MS));
    advance(SETTLE_MS);
    expect(await service.evaluate(row().id)).toMatchObject({ action: 'announce_green' });
    expect(await service.evaluate(row().id)).toMatchObject({ reason: 'already_announced' });
    expect(announce).toHaveBeenCalledTimes(1);
    expect(announce.mock.calls[0]?.[2]).toMatch(/^CI is green on https:\/\/github.com\/acme/);
  });

  it('drops failures that fail on the base branch too, reading the base only for failures', async () => {
    const { service, publish, failingOnBase, row } = setup({}, false, () =>
      Promise.resolve(new Set(['lint'])),
    );
    const green = { headSha: AGENT_HEAD, check: check('build', 'success') };
    expect(await service.evaluate(row().id, green)).toMatchObject({ reason: 'settling' });
    expect(failingOnBase).not.toHaveBeenCalled();

    const lint = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await service.evaluate(row().id, lint)).toEqual({
      action: 'skip',
      reason: 'all_failing_on_base',
    });
    expect(failingOnBase).toHaveBeenCalledWith({ owner: 'acme', name: 'widgets' }, 7);
    const types = { headSha: AGENT_HEAD, check: check('types', 'failure') };
    expect(await service.evaluate(row().id, types)).toMatchObject({
      action: 'fix',
      failing: [{ name: 'types' }],
    });
    expect(publish).toHaveBeenCalledTimes(1);
    // The head had its fix run: its later deliveries read no base.
    expect(await service.evaluate(row().id, types)).toMatchObject({ reason: 'already_handled' });
    expect(failingOnBase).toHaveBeenCalledTimes(2);
  });

  it('drops nothing when the base branch cannot be read', async () => {
    const { service, publish, row } = setup({}, false, () =>
      Promise.reject(new Error('GitHub: 502')),
    );
    const lint = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await service.evaluate(row().id, lint)).toMatchObject({ action: 'fix' });
    expect(publish).toHaveBeenCalledTimes(1);
  });

  it('counts a rerun of a failed check once, and asks again when it fails again', async () => {
    const { service, publish, row } = setup();
    const failing = { headSha: AGENT_HEAD, check: check('e2e', 'failure') };
    const rerun = {
      headSha: AGENT_HEAD,
      check: { ...check('e2e', 'failure'), status: 'queued', conclusion: null } as CiCheck,
    };
    expect(await service.evaluate(row().id, failing)).toMatchObject({ action: 'fix' });
    expect(await service.evaluate(row().id, rerun)).toMatchObject({ reason: 'checks_pending' });
    expect(await service.evaluate(row().id, rerun)).toMatchObject({ reason: 'checks_pending' });
    expect(row().rerunsAtHead).toBe(1);
    expect(await service.evaluate(row().id, failing)).toMatchObject({ action: 'fix' });
    expect(await service.evaluate(row().id, failing)).toMatchObject({ reason: 'already_handled' });
    expect(publish).toHaveBeenCalledTimes(2);
    expect(row()).toMatchObject({ fixRuns: 2, rerunsAtHead: 1 });
  });

  it('counts "re-run failed jobs" (several failed checks started at once) as one rerun', async () => {
    const { service, row } = setup();
    const queued = (name: string): CiCheck => ({
      kind: 'check_run',
      name,
      status: 'queued',
      conclusion: null,
    });
    for (const name of ['e2e', 'lint']) {
      await service.evaluate(row().id, { headSha: AGENT_HEAD, check: check(name, 'failure') });
    }
    await service.evaluate(row().id, { headSha: AGENT_HEAD, check: queued('e2e') });
    await service.evaluate(row().id, { headSha: AGENT_HEAD, check: queued('lint') });
    expect(row().rerunsAtHead).toBe(1);
  });

  it('gives a merge conflict one fix run per head however often the sweep sees it', async () => {
    const { service, publish, row } = setup();
    const conflict = { headSha: AGENT_HEAD, mergeable: false, state: 'open' as const };
    expect(await service.evaluate(row().id, conflict)).toMatchObject({ mergeConflict: true });
    expect(await service.evaluate(row().id, conflict)).toMatchObject({ reason: 'already_handled' });
    // A read naming no head is taken at the head last seen: still the same head's conflict.
    expect(await service.evaluate(row().id, { ...conflict, headSha: '' })).toMatchObject({
      reason: 'already_handled',
    });
    expect(row().headSha).toBe(AGENT_HEAD);
    expect(publish).toHaveBeenCalledTimes(1);
  });

  it("stops at a person's commit at the head, without a fix run", async () => {
    const { service, publish, row } = setup();
    const decision = await service.evaluate(row().id, {
      headSha: PERSON_HEAD,
      check: check('lint', 'failure'),
    });
    expect(decision).toEqual({ action: 'skip', reason: 'human_commit_at_head' });
    expect(publish).not.toHaveBeenCalled();
    expect(row()).toMatchObject({ active: false, stoppedReason: 'human_commit_at_head' });
    expect(await service.evaluate(row().id)).toBeNull();
  });

  it('reads the pull request before a fix and leaves one merged since the failure alone', async () => {
    const merged = { state: 'merged' as const, headSha: AGENT_HEAD, mergeable: null };
    const { service, publish, announce, read, row } = setup({}, false, undefined, () =>
      Promise.resolve(merged),
    );
    const decision = await service.evaluate(row().id, {
      headSha: AGENT_HEAD,
      check: check('lint', 'failure'),
    });
    expect(decision).toEqual({ action: 'finish_watch', reason: 'pull_request_merged' });
    expect(read).toHaveBeenCalledTimes(1);
    expect(publish).not.toHaveBeenCalled();
    expect(announce).not.toHaveBeenCalled();
    expect(row()).toMatchObject({ active: false, stoppedReason: 'pull_request_merged' });
  });

  it('takes a failure at a head the pull request was pushed past at the head it has now', async () => {
    const next = 'c'.repeat(40);
    const { service, publish, row } = setup({}, false, undefined, () =>
      Promise.resolve({ state: 'open', headSha: next, mergeable: true }),
    );
    const decision = await service.evaluate(row().id, {
      headSha: AGENT_HEAD,
      check: check('lint', 'failure'),
    });
    // Nothing is known of the new head's checks yet: the watch waits for them there.
    expect(decision).toEqual({ action: 'skip', reason: 'checks_pending' });
    expect(publish).not.toHaveBeenCalled();
    expect(row()).toMatchObject({ active: true, headSha: next, fixRuns: 0 });
  });

  it('acts on the delivery when the pull request cannot be read, and reads it once only', async () => {
    const { service, publish, read, row } = setup({}, false, undefined, () =>
      Promise.reject(new Error('GitHub answered 502')),
    );
    const decision = await service.evaluate(row().id, {
      headSha: AGENT_HEAD,
      check: check('lint', 'failure'),
    });
    expect(decision).toMatchObject({ action: 'fix' });
    expect(publish).toHaveBeenCalledTimes(1);
    // A read the sweep made (it says the state) is not read again; a skip needs no read.
    await service.evaluate(row().id, { headSha: AGENT_HEAD, state: 'open', mergeable: false });
    await service.evaluate(row().id, { headSha: AGENT_HEAD, check: check('lint', 'failure') });
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('posts "limit reached" once at the loop cap', async () => {
    const { service, announce, publish, row } = setup({ fixRuns: 10 });
    const failing = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await service.evaluate(row().id, failing)).toMatchObject({ action: 'announce_limit' });
    expect(await service.evaluate(row().id, failing)).toMatchObject({
      reason: 'limit_already_announced',
    });
    expect(announce).toHaveBeenCalledTimes(1);
    expect(publish).not.toHaveBeenCalled();
  });

  it('skips a repository without CI auto-fix unless a person asked for the watch', async () => {
    const off = setup({ repositoryOwner: 'other' });
    const failing = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await off.service.evaluate(off.row().id, failing)).toMatchObject({
      reason: 'repository_not_enabled',
    });
    const asked = setup({ repositoryOwner: 'other', asked: true, agentHeads: [] });
    // Asked for by a person: their own head gets the fix too.
    expect(await asked.service.evaluate(asked.row().id, failing)).toMatchObject({
      action: 'fix',
    });
  });

  it("skips a pull request whose requester turned auto-fix CI off in the thread owner's profile", async () => {
    const { service, publish, ownerOf, profile, row, requester } = setup();
    requester('slack:U1', false);
    const failing = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await service.evaluate(row().id, failing)).toEqual({
      action: 'skip',
      reason: 'disabled_by_profile',
    });
    expect(ownerOf).toHaveBeenCalledWith(row().threadId);
    expect(profile).toHaveBeenCalledWith('slack:U1');
    expect(publish).not.toHaveBeenCalled();
    // A thread nobody owns follows the team's default: on.
    requester(null, false);
    expect(await service.evaluate(row().id, failing)).toMatchObject({ action: 'fix' });
    expect(profile).toHaveBeenCalledTimes(1);
  });

  it('lets `autofix on` on the pull request, or a watch a person asked for, outrank the profile', async () => {
    const toggled = setup({ autofix: true });
    toggled.requester('slack:U1', false);
    const failing = { headSha: AGENT_HEAD, check: check('lint', 'failure') };
    expect(await toggled.service.evaluate(toggled.row().id, failing)).toMatchObject({
      action: 'fix',
    });
    const asked = setup({ asked: true });
    asked.requester('slack:U1', false);
    expect(await asked.service.evaluate(asked.row().id, failing)).toMatchObject({ action: 'fix' });
    // The profile is not read when it cannot change the outcome.
    expect(toggled.profile).not.toHaveBeenCalled();
    expect(asked.ownerOf).not.toHaveBeenCalled();
  });
});

describe('agentPushOf', () => {
  it("reads the pull request and commit from commit_and_open_pr's observation", () => {
    expect(
      agentPushOf(
        'Committed 0123456789ab and pushed caravel/5f2b7c1e; opened draft pull request #7: https://github.com/acme/widgets/pull/7',
      ),
    ).toEqual({
      owner: 'acme',
      repo: 'widgets',
      number: 7,
      url: 'https://github.com/acme/widgets/pull/7',
      commit: '0123456789ab',
    });
    expect(
      agentPushOf(
        'There was nothing new to commit and pushed caravel/x; updated pull request #8 (ready for review): http://127.0.0.1:1/acme/widgets/pull/8',
      ),
    ).toMatchObject({ number: 8, commit: null });
    expect(agentPushOf('Error (CONFLICT): the push was rejected')).toBeNull();
  });
});
