import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { CannedChatModel } from '@caravel/agent/langchain';
import { FakeGitHub } from '@caravel/testing';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { swegenErrorReason } from '../errors/swegen-errors.js';
import { GithubPrSource } from '../pr/github-pr-source.js';
import {
  buildDatasetRepo,
  buildFarmFixture,
  evaluationResponses,
  type FarmFixture,
} from '../testing/farm-fixture.js';
import { FarmState } from './farm-state.js';
import { runFarm, type FarmOptions } from './farm.js';

const TOKEN = 'ghp_farmtoken';
const DATASET = 'data/tasks';
const STATE_BRANCH = 'farm-state/acme__strings';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    env: { PATH: '/usr/bin:/bin', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
  }).trim();

describe('farm + publish against a local bare dataset repository and the fake GitHub', () => {
  let scratch: string;
  let fixture: FarmFixture;
  let fake: FakeGitHub;
  let bare: string;
  let model: CannedChatModel;

  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'swegen-farm-'));
    fixture = buildFarmFixture([
      { number: 1 },
      { number: 2, linkIssue: false },
      { number: 3 },
      { number: 4, sources: 1 },
      { number: 5, merged: false },
      { number: 6 },
    ]);
    fake = new FakeGitHub({ root: join(scratch, 'git') }).addUserToken(TOKEN, 'farmer');
    for (const pull of fixture.pulls) fake.addSourcePull('acme/strings', pull);
    for (const issue of fixture.issues) fake.addSourceIssue('acme/strings', issue);
    bare = buildDatasetRepo(join(scratch, 'git'), DATASET);
    await fake.start();
    model = new CannedChatModel({
      responses: evaluationResponses(40),
      file: 'x',
      kind: 'scripted',
    });
  });

  afterEach(async () => {
    await fake.close();
    fixture.repo.remove();
    await rm(scratch, { recursive: true, force: true });
  });

  const options = (extra: Partial<FarmOptions> = {}): FarmOptions => ({
    repo: 'acme/strings',
    source: new GithubPrSource({ token: TOKEN, apiUrl: fake.origin }),
    stateDir: join(scratch, '.swegen'),
    tasksDir: join(scratch, 'tasks'),
    create: { model, validate: false },
    perPage: 2,
    publish: { repo: DATASET, token: TOKEN, apiUrl: fake.origin },
    ...extra,
  });

  /** The create.jsonl lines of one key. */
  const records = async (key: string): Promise<Record<string, unknown>[]> =>
    (await readFile(join(scratch, '.swegen', 'create.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((record) => record['key'] === key);

  const remoteState = (): FarmState =>
    FarmState.fromJSON(
      JSON.parse(git(bare, 'show', `${STATE_BRANCH}:state/acme__strings.json`)) as unknown,
    );

  /** Pushes a state written by another farm (processed `pr`) to the state branch. */
  const concurrentWriter = (pr: number): void => {
    const other = join(scratch, `other-${pr}`);
    git(scratch, 'clone', '--quiet', '--branch', STATE_BRANCH, bare, other);
    const state = FarmState.fromJSON(
      JSON.parse(git(other, 'show', 'HEAD:state/acme__strings.json')),
    );
    state.markProcessed(pr, '2025-06-01T00:00:00Z', {
      kind: 'success',
      taskId: `acme__strings-${pr}`,
    });
    execFileSync('sh', ['-c', `cat > state/acme__strings.json`], {
      cwd: other,
      input: JSON.stringify(state.toJSON()),
    });
    git(other, 'commit', '--quiet', '-am', `other writer: ${pr}`);
    git(other, 'push', '--quiet', 'origin', STATE_BRANCH);
  };

  it('publishes a branch and a PR per task and pushes the state after every PR', async () => {
    const result = await runFarm(options());
    expect(result.outcome).toBe('completed');
    expect(result.state.toJSON()).toMatchObject({
      processed_prs: [1, 2, 3, 6],
      successful_prs: { '1': 'acme__strings-1', '3': 'acme__strings-3', '6': 'acme__strings-6' },
      no_issue_prs: [2],
      total_processed: 4,
      successful: 3,
      failed: 1,
      last_pr_number: 1,
    });
    const changed = git(bare, 'diff', '--name-only', 'main', 'task/acme__strings-3').split('\n');
    expect(changed.length).toBeGreaterThan(3);
    expect(changed.every((path) => path.startsWith('tasks/acme__strings-3/'))).toBe(true);
    const pulls = fake.state.pulls.get(DATASET) ?? [];
    expect(pulls.map((p) => p.head).sort()).toEqual([
      'task/acme__strings-1',
      'task/acme__strings-3',
      'task/acme__strings-6',
    ]);
    expect(pulls[0]!.body).toContain('https://github.com/acme/strings/pull/6');
    expect(remoteState().toJSON()).toEqual(result.state.toJSON());
    const stateCommits = git(bare, 'rev-list', '--count', STATE_BRANCH);
    expect(Number(stateCommits)).toBeGreaterThanOrEqual(5);
    expect(git(bare, 'ls-tree', '-r', '--name-only', STATE_BRANCH)).toBe(
      'state/acme__strings.json',
    );
  }, 120_000);

  it('resumes from the saved state without redoing a PR', async () => {
    const first = await runFarm(options({ maxPrs: 2 }));
    expect(first.state.toJSON()).toMatchObject({ processed_prs: [3, 6], last_pr_number: 3 });
    const callsAfterFirst = model.calls.length;
    await rm(join(scratch, '.swegen', 'stream_farm'), { recursive: true });
    const second = await runFarm(options());
    expect(second.state.toJSON()).toMatchObject({ processed_prs: [1, 2, 3, 6], successful: 3 });
    expect(model.calls.length - callsAfterFirst).toBe(1);
  }, 120_000);

  it('stops on a failed publish, keeps the task, and the retry publishes it without regenerating', async () => {
    fake.failNext(
      { method: 'POST', path: `/repos/${DATASET}/pulls` },
      { status: 422, body: { message: 'nope' } },
    );
    const first = await runFarm(options());
    expect(first.outcome).toBe('aborted');
    expect(swegenErrorReason(first.error)).toBe('publish_error');
    expect(first.state.toJSON()).toMatchObject({ processed_prs: [], publish_failed_prs: [6] });
    expect(remoteState().toJSON()).toMatchObject({ publish_failed_prs: [6] });
    expect(existsSync(join(scratch, 'tasks', 'acme__strings-6', 'tests'))).toBe(true);
    expect(git(bare, 'rev-parse', '--verify', 'task/acme__strings-6')).toMatch(/^[0-9a-f]{40}$/);
    expect(await records('acme/strings#6')).toEqual([
      expect.objectContaining({ task_id: 'acme__strings-6', published: false }),
    ]);
    const calls = model.calls.length;
    const second = await runFarm(options({ maxPrs: 1 }));
    expect(second.state.toJSON()).toMatchObject({
      processed_prs: [6],
      publish_failed_prs: [],
      successful_prs: { '6': 'acme__strings-6' },
    });
    expect(model.calls.length).toBe(calls);
    expect((fake.state.pulls.get(DATASET) ?? []).map((p) => p.head)).toEqual([
      'task/acme__strings-6',
    ]);
    const url = second.state.taskPrUrls.get(6);
    expect(url).toMatch(/\/data\/tasks\/pull\/\d+$/);
    expect(await records('acme/strings#6')).toEqual([
      expect.objectContaining({ task_id: 'acme__strings-6', published: true, pr_url: url }),
    ]);
  }, 120_000);

  it('merges a concurrent writer state instead of overwriting it', async () => {
    await runFarm(options({ maxPrs: 1 }));
    let pushed = false;
    const result = await runFarm(
      options({
        maxPrs: 1,
        log: (line) => {
          if (!pushed && line.startsWith('[1]')) {
            pushed = true;
            concurrentWriter(99);
          }
        },
      }),
    );
    expect(pushed).toBe(true);
    expect(result.state.processed.has(99)).toBe(true);
    expect(remoteState().toJSON()).toMatchObject({ processed_prs: [3, 6, 99], last_pr_number: 3 });
  }, 120_000);

  it('resets by force-pushing once, then merges concurrent writers again', async () => {
    await runFarm(options({ maxPrs: 2 }));
    let writes = 0;
    const result = await runFarm(
      options({
        reset: true,
        maxPrs: 2,
        log: (line) => {
          if (/^\[[12]\]/.test(line)) concurrentWriter(90 + (writes += 1));
        },
      }),
    );
    expect(writes).toBe(2);
    const remote = remoteState().toJSON();
    expect(remote.processed_prs).toEqual([3, 6, 92]);
    expect(result.outcome).toBe('completed');
  }, 120_000);

  it('refuses a token that reports push: false before any PR', async () => {
    fake.setPermissions(DATASET, { pull: true, push: false });
    await expect(runFarm(options())).rejects.toMatchObject({
      details: { reason: 'publish_auth_error' },
    });
    expect(model.calls.length).toBe(0);
  });

  it('records nothing on a dry run', async () => {
    const lines: string[] = [];
    const result = await runFarm(options({ dryRun: true, log: (l) => lines.push(l) }));
    expect(result.prsSeen).toBe(4);
    expect(result.state.totalProcessed).toBe(0);
    expect(existsSync(join(scratch, '.swegen', 'stream_farm'))).toBe(false);
    expect(existsSync(join(scratch, 'tasks'))).toBe(false);
    expect(lines.some((l) => l.includes('would generate acme__strings-6'))).toBe(true);
  }, 120_000);
});
